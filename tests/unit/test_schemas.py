"""The committed JSON Schemas (docs/schema/) are the ones floorcalc.render.schemas generates
from the document records: regenerate with `python -m floorcalc.render.schemas docs/schema`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from floorcalc.render.schemas import DOCUMENTS, document_schemas, main, schema_text

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schema"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_committed_schema_is_the_generated_one(name: str) -> None:
    generated = document_schemas()[name]
    jsonschema.Draft202012Validator.check_schema(generated)
    committed = (SCHEMAS / f"{name}.schema.json").read_text()
    assert committed == schema_text(generated), f"run: python -m floorcalc.render.schemas docs/schema"


def test_check_says_which_is_stale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 0
    assert main([str(tmp_path), "--check"]) == 0
    (tmp_path / "report.schema.json").write_text("{}")
    assert main([str(tmp_path), "--check"]) == 1
    assert "report.schema.json" in capsys.readouterr().err
    assert json.loads((tmp_path / "report.schema.json").read_text()) == {}


def test_the_field_lists_of_json_schema_md_are_the_generated_ones() -> None:
    from floorcalc.render.schemas import BEGIN, with_reference

    text = (SCHEMAS.parent / "json-schema.md").read_text()
    assert BEGIN in text
    assert with_reference(text) == text, "run: python -m floorcalc.render.schemas docs/schema --docs docs/json-schema.md"
