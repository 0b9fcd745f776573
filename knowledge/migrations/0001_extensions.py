"""Extensions and accent-folding text-search configurations the knowledge app relies on."""

from django.contrib.postgres.operations import TrigramExtension, UnaccentExtension
from django.db import migrations
from pgvector.django import VectorExtension

LANGUAGES = [
    ("pb_spanish", "spanish_stem"),
    ("pb_portuguese", "portuguese_stem"),
    ("pb_english", "english_stem"),
    ("pb_simple", "simple"),
]


def _create(name: str, dictionary: str) -> str:
    # unaccent first, then the stemmer: "medicación" and "medicacion" index as one lexeme.
    return (
        f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {name};"
        f"CREATE TEXT SEARCH CONFIGURATION {name} (COPY = simple);"
        f"ALTER TEXT SEARCH CONFIGURATION {name} ALTER MAPPING FOR "
        f"asciiword, asciihword, hword_asciipart, word, hword, hword_part "
        f"WITH unaccent, {dictionary};"
    )


class Migration(migrations.Migration):
    initial = True
    dependencies = []

    operations = [
        VectorExtension(),
        UnaccentExtension(),
        TrigramExtension(),
        *[
            migrations.RunSQL(_create(name, dictionary), f"DROP TEXT SEARCH CONFIGURATION {name};")
            for name, dictionary in LANGUAGES
        ],
    ]
