"""Old Word and PowerPoint files (.doc, .ppt: Office 97–2003's binary formats) converted to
.docx and .pptx by LibreOffice, then read as those are. No maintained Python library reads
them; LibreOffice is the reference reader outside Microsoft Office.

LibreOffice runs headless as its own process group, on a copy of the file, with a profile
of its own in a temporary directory (nothing shared between conversions, none of the
server's settings): no macro runs, no linked picture is fetched (its requests go to a proxy
that is not there) and no linked section is updated; within the document's reading time and
an address-space limit; it is killed whole when the time is up. It is used when ``soffice`` is on the PATH (``KNOWLEDGE_LIBREOFFICE`` names another,
or ``off``); without it such files are refused at upload with what to do."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext_noop

from knowledge.extraction.base import Deadline, IngestionError

logger = logging.getLogger(__name__)

# LibreOffice's export filters for the formats the readers know.
FILTERS = {"docx": "docx:MS Word 2007 XML", "pptx": "pptx:Impress MS PowerPoint 2007 XML"}
CONVERSION_SECONDS = 120  # a 300-page .doc converts in ~20 s; a hung one is stopped here
ADDRESS_SPACE_BYTES = 4 * 1024**3  # LibreOffice maps ~1 GB; a runaway file stops at this


def libreoffice() -> str | None:
    """The ``soffice`` to convert with, or None when there is none (or it is switched off)."""
    chosen = settings.KNOWLEDGE_LIBREOFFICE
    if chosen == "off":
        return None
    return shutil.which(chosen or "soffice")


def no_converter() -> IngestionError:
    return IngestionError(
        gettext_noop(
            "This is an old Word or PowerPoint file (.doc or .ppt), which this server reads "
            "with LibreOffice, and LibreOffice is not installed. Save it as .docx or .pptx (or "
            "PDF) and upload that, or install LibreOffice on the server (Debian: "
            "libreoffice-writer-nogui libreoffice-impress-nogui)."
        )
    )


@contextlib.contextmanager
def converted(path: Path, suffix: str, target: str, deadline: Deadline) -> Iterator[Path]:
    """``path`` (an old ``suffix`` file) as a ``target`` file ("docx", "pptx"), for as long
    as the block runs; its temporary directory is removed after."""
    binary = libreoffice()
    if binary is None:
        raise no_converter()
    with tempfile.TemporaryDirectory(prefix="pb-libreoffice-") as tmp:
        work = Path(tmp)
        source = work / f"document.{suffix}"
        shutil.copyfile(path, source)  # its own name and extension, not the upload's
        _write_profile(work / "profile")
        _run(binary, source, target, work, min(CONVERSION_SECONDS, deadline.remaining()))
        result = work / "out" / f"document.{target}"
        if not result.is_file():
            raise IngestionError(
                gettext_noop(
                    "LibreOffice could not convert this old Word or PowerPoint file: it may be "
                    "damaged or password-protected. Open it, save it as .docx or .pptx (or "
                    "PDF), and upload that."
                )
            )
        yield result


# The profile's settings. LibreOffice fetches a linked picture's URL while it converts: an
# uploaded file could make the worker request any address it reaches (a cloud's metadata
# service, an internal page). Every request goes to a proxy that is not there (the discard
# port, 9, on loopback), and linked sections or fields are never updated from their source
# (a file:// link would bring in a file of the server).
_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
{items}
</oor:items>
"""
_SETTINGS = {
    "/org.openoffice.Inet/Settings": {
        "ooInetProxyType": "2",  # manual
        "ooInetNoProxy": "",
        **{f"ooInet{scheme}ProxyName": "127.0.0.1" for scheme in ("HTTP", "HTTPS", "FTP")},
        **{f"ooInet{scheme}ProxyPort": "9" for scheme in ("HTTP", "HTTPS", "FTP")},
    },
    "/org.openoffice.Office.Common/Security/Scripting": {
        "BlockUntrustedRefererLinks": "true",
        "MacroSecurityLevel": "3",  # very high: no macro runs
        "DisableMacrosExecution": "true",
    },
    "/org.openoffice.Office.Writer/Content/Update": {"Link": "2"},  # never
    "/org.openoffice.Office.Impress/Content/Update": {"Link": "2"},
}


def _write_profile(profile: Path) -> None:
    items = "\n".join(
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse">'
        f"<value>{value}</value></prop></item>"
        for path, settings_ in _SETTINGS.items()
        for name, value in settings_.items()
    )
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(
        _PROFILE.format(items=items), encoding="utf-8"
    )


def _run(binary: str, source: Path, target: str, work: Path, seconds: float) -> None:
    command = [
        binary, "--headless", "--norestore", "--nolockcheck", "--nodefault", "--nologo",
        f"-env:UserInstallation={(work / 'profile').as_uri()}",
        "--convert-to", FILTERS[target], "--outdir", str(work / "out"), str(source),
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=work,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its helper processes too: killed as one group
        preexec_fn=_limit_memory,  # noqa: PLW1509 - only sets a limit, before exec
    )
    try:
        output, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise IngestionError(
            gettext_noop(
                "Converting this old Word or PowerPoint file took longer than %(limit)s "
                "seconds. Save it as .docx or .pptx (or PDF) and upload that."
            ),
            params={"limit": int(seconds)},
        ) from exc
    finally:
        with contextlib.suppress(ProcessLookupError):  # a helper it left behind
            os.killpg(process.pid, signal.SIGKILL)
    if process.returncode:
        logger.info("LibreOffice exited %s: %s", process.returncode, output[-500:])


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))
