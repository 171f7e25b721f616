"""--help is for users: it says what a command does, never which module does it, and never breaks
an option's name across lines."""

import re

import pytest

from floorcalc.cli import build_parser

COMMANDS = ["report", "analyze", "device", "calibrate", "count", "diff", "whatif"]


def _help(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    parser = build_parser()
    if command is None:
        return parser.format_help()
    sub = next(a for a in parser._subparsers._group_actions if a.choices)
    return sub.choices[command].format_help()


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_names_no_module_and_breaks_no_option(command, monkeypatch):
    text = _help(command, monkeypatch)
    # THEN no floorcalc module is named (the decorator a user writes in a formula file is API, not
    # a module to read: @floorcalc.counting.formula)
    modules = [m for m in re.findall(r"floorcalc\.[a-z_]+(?:\.[a-z_]+)*", text) if m != "floorcalc.counting.formula"]
    assert modules == [], modules
    # AND no line ends in the middle of a hyphenated word ("--nproc-per-" / "node")
    broken = [line for line in text.splitlines() if re.search(r"[A-Za-z]-$", line)]
    assert broken == [], broken


def test_report_help_says_what_nproc_per_node_does(monkeypatch):
    text = " ".join(_help("report", monkeypatch).split())
    assert "(floorcalc.capture.distributed)" not in text
    assert "With --nproc-per-node N, N ranks run the model under torch.distributed" in text
    assert "who waited on whom" in text
