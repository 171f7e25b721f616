"""User and trace text reaches the terminal as it is (issue 13 item 3, issue 18): never parsed as
rich markup or emoji codes, never coloured by rich's highlighter, control characters shown as
escapes; floorcalc's own styles still there on a terminal."""

import io
import re

import pytest
from rich.console import Console

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.render.table import TableRenderer
from floorcalc.render.terminal import PlainTable, make_console, plain, styled
from floorcalc.trace import load

ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: op and module names a trace may hold: markup (a closing tag crashed the table renderer), an
#: emoji code, numbers and versions (which the highlighter coloured), brackets, a backslash
HOSTILE = ["[/fwd]", "aten::[bold]mm[/bold]", "x:smile:y", "layer 123 v0.1.0", "a\\[b]", "[link=http://x]y"]


def hostile_report(tmp_path, name, module="[red]blocks.0[/red]", kernel="k[/x]"):
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    b.module(module, 1.0, 60.0)
    ext = b.op(name, 2.0, 50.0)  # no formula, no shapes: uncounted (with shapes it would be bytes-only)
    b.launch(3.0, 10.0, 20.0, kernel, ext=ext)
    trace = load(b.write(tmp_path / "t.trace.json.gz"))
    return trace, build_report(trace, toy_spec())


def terminal(width=200):
    """What a colour terminal gets: floorcalc's console, forced to a terminal with colours."""
    buf = io.StringIO()
    c = make_console(buf, width=width)
    c._force_terminal = True
    c._color_system = Console(force_terminal=True, color_system="truecolor")._color_system
    return c, buf


@pytest.mark.parametrize("name", HOSTILE)
def test_op_names_with_markup_are_printed_as_they_are(tmp_path, name):
    # GIVEN a trace whose op, module and kernel names hold rich markup
    _, report = hostile_report(tmp_path, name)
    # WHEN the table is printed, on a plain page and on a colour terminal
    buf = io.StringIO()
    TableRenderer(width=200).print(report, make_console(buf, width=200, color=False))
    c, tbuf = terminal()
    TableRenderer().print(report, c)
    # THEN each name is there, character for character, and nothing crashed
    for text in (buf.getvalue(), ANSI.sub("", tbuf.getvalue())):
        assert name in text and "[red]blocks.0[/red]" in text


def test_the_cli_table_survives_a_closing_tag_as_op_name(tmp_path, capsys):
    """The issue's example: an op named ``[/fwd]`` ended the table renderer in exit 70."""
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    ext = b.op("[/fwd]", 2.0, 50.0, tensor_args([4, 8]))
    b.launch(3.0, 10.0, 20.0, "[/kernel]", ext=ext)
    p = b.write(tmp_path / "t.trace.json.gz")
    assert main(["analyze", str(p), "--spec", "h200"]) == 0
    assert "[/fwd]" in capsys.readouterr().out
    out = tmp_path / "r.txt"
    assert main(["analyze", str(p), "--spec", "h200", "-o", str(out)]) == 0
    assert "[/fwd]" in out.read_text()


def test_a_callers_console_with_markup_on_changes_nothing(tmp_path):
    """A Console made by the caller (markup, emoji and highlighting on, rich's defaults) prints
    the names as they are too: floorcalc's text reaches rich as Text only."""
    _, report = hostile_report(tmp_path, "x:smile: [/fwd] [bold]y")
    buf = io.StringIO()
    TableRenderer().print(report, Console(file=buf, width=200))
    assert "x:smile: [/fwd] [bold]y" in buf.getvalue()


def test_no_colour_but_floorcalcs_own(tmp_path):
    """Issue 18: the version in the header and numbers inside op names come out uncoloured; the
    bound column keeps its colour and the header its bold."""
    _, report = hostile_report(tmp_path, "layer 123 v0.1.0", module="blocks.7")
    c, buf = terminal()
    TableRenderer().print(report, c)
    out = buf.getvalue()
    header = out.splitlines()[0]
    assert "floorcalc 0.1.0" in ANSI.sub("", header)
    assert re.search(r"\x1b\[1mfloorcalc [0-9.]+\x1b\[0m", header), repr(header)  # bold, one run, no colour inside
    row = next(line for line in out.splitlines() if "layer 123" in line)
    assert "layer 123 v0.1.0" in row  # no escape code inside the name
    assert "blocks.7" in row  # a group of one instance shows its own path, no escape code inside the 7
    assert "\x1b[35muncounted\x1b[0m" in row  # floorcalc's own style for the bound


def test_control_characters_are_shown_not_obeyed(tmp_path):
    name = "evil\x1b[31mred\x07\nnext\tcol\x9b"
    _, report = hostile_report(tmp_path, name)
    c, buf = terminal()
    TableRenderer().print(report, c)
    out = ANSI.sub("", buf.getvalue())
    assert "evil\\x1b[31mred\\x07\\nnext\\tcol\\x9b" in out
    assert "\x07" not in buf.getvalue() and "\x9b" not in buf.getvalue()
    assert "\x1b[31mred" not in buf.getvalue()  # the name's own escape never reaches the terminal


def test_plain_and_styled():
    assert plain("a\x1bb\nc").plain == "a\\x1bb\\nc"
    assert plain("[b]x[/b]").plain == "[b]x[/b]" and plain(3).plain == "3"
    t = styled(("bold", "bold"), " and ", plain("[x]"))
    assert t.plain == "bold and [x]" and t.spans[0].style == "bold"


def test_plain_table_cells_titles_and_headers():
    t = PlainTable(title="[b]title[/b]")
    t.add_column("two\nlines")
    t.add_row("[/x] :smile:")
    buf = io.StringIO()
    Console(file=buf, width=80).print(t)  # rich's default console: markup and emoji on
    out = buf.getvalue()
    assert "[b]title[/b]" in out and "[/x] :smile:" in out and "two" in out and "lines" in out


def test_every_console_floorcalc_makes_interprets_nothing():
    c = make_console(io.StringIO())
    assert not c._markup and not c._emoji and not c._highlight


def test_error_lines_show_control_characters_as_escapes(tmp_path, capsys):
    """A name with an escape sequence in an error message reaches the terminal inert."""
    assert main(["analyze", str(tmp_path / "evil\x1b[31m\x07.json")]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err and "evil\\x1b[31m\\x07.json" in err
