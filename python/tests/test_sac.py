"""Mixtour from StackAndConquer files, as `stackfish import` reads them."""

import pathlib
import subprocess

import pytest

import stackfish

BOARDS = pathlib.Path(__file__).resolve().parents[2] / "boards"


@pytest.mark.parametrize("name", ["ring_7x7.in", "square_5x5_no_corners.in", "square_6x6.in"])
def test_a_board_file_gives_the_import_commands_position(name, stackfish_bin):
    path = BOARDS / name
    imported = subprocess.run([stackfish_bin, "import", str(path)], capture_output=True,
                              text=True, check=True).stdout.strip()
    game = stackfish.game_from_sac(path)
    assert game.fen() == imported
    assert game.legal_moves() and game.num_actions() > 1
    assert stackfish.import_sac(str(path), 3).split()[4] == "3"


def test_a_bad_file_gives_the_import_commands_message(tmp_path, stackfish_bin):
    bad = tmp_path / "digit.in"
    bad.write_text("20\n0,0\n0,1\n")
    done = subprocess.run([stackfish_bin, "import", str(bad)], capture_output=True, text=True)
    assert done.returncode == 2
    with pytest.raises(stackfish.Error) as caught:
        stackfish.game_from_sac(bad)
    assert done.stderr.strip() == f"error: {caught.value}"
