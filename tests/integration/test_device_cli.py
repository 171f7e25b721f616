"""``floorcalc device`` piped or redirected: as wide as the other tables (160 columns when
standard output is not a terminal and COLUMNS is unset), and a shipped spec named by its place
in the repository (``devices/h200.yaml``), not by the folder floorcalc happens to live in."""

from floorcalc.cli import main


def test_device_piped_is_160_columns_and_names_the_shipped_spec_relatively(monkeypatch, capsys):
    # GIVEN standard output that is not a terminal (pytest's capture) and no COLUMNS
    monkeypatch.delenv("COLUMNS", raising=False)
    # WHEN the H200's spec is shown
    assert main(["device", "--name", "NVIDIA H200"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # THEN the table uses the pipe width, so the source column is readable and the output short
    assert max(len(x) for x in lines) == 160
    assert len(lines) < 200
    # AND the spec file is named as it sits in the repository
    assert "spec read from: devices/h200.yaml" in out
    assert "/devices/h200.yaml" not in out


def test_device_follows_columns_when_set(monkeypatch, capsys):
    # GIVEN COLUMNS=100
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["device", "--name", "NVIDIA H200"]) == 0
    # THEN the table is that wide
    assert max(len(x) for x in capsys.readouterr().out.splitlines()) == 100
