"""floorcalc.util.sharing.local_path and local_text: a file named in a message on this machine's
stderr for the user to open (relative to the working folder under it, else whole), unlike the
outputs' shared paths (the file name alone outside it)."""

from pathlib import Path

from floorcalc.util.sharing import local_path, local_text, shared_text

BASE = Path("/home/u/work")


def test_a_path_under_the_folder_is_relative_and_one_outside_it_whole():
    assert local_path("/home/u/work/sub/t.trace.json.gz", BASE) == "sub/t.trace.json.gz"
    assert local_path("/tmp/run/t.trace.json.gz", BASE) == "/tmp/run/t.trace.json.gz"
    assert local_path("/home/u/t.json", BASE) == "/home/u/t.json"          # the parent folder: outside
    assert local_path("/home/u/workshop/t.json", BASE) == "/home/u/workshop/t.json"
    assert local_path("rel/t.json", BASE) == "rel/t.json"


def test_every_path_of_a_message_is_shown_so_and_a_folder_keeps_its_separator():
    text = "traces written: /tmp/run/ (r0.json ... r1.json); model /home/u/work/m.py"
    assert local_text(text, BASE) == "traces written: /tmp/run/ (r0.json ... r1.json); model m.py"
    # the outputs' rule, for contrast: the file name alone outside the folder
    assert shared_text("trace written: /tmp/run/t.json", BASE) == "trace written: t.json"
    assert local_text("trace written: /tmp/run/t.json", BASE) == "trace written: /tmp/run/t.json"


def test_a_name_given_for_a_path_is_taken_first():
    named = {"/tmp/run/t.json": "../../tmp/run/t.json"}.get
    assert local_text("trace written: /tmp/run/t.json, /tmp/x.json", BASE, named) == \
        "trace written: ../../tmp/run/t.json, /tmp/x.json"
