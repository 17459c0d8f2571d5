"""Scratch space of a grading or feedback process (graders.autograde.scratch): temporary files
under the course directory, unless its path leaves no room for a socket under it."""

import multiprocessing
import tempfile
from concurrent.futures import ProcessPoolExecutor

from graders.autograde import scratch


def test_a_deep_course_directory_still_leaves_room_for_multiprocessings_socket(tmp_path):
    deep = tmp_path / ("a-long-folder-name-" * 6) / "course"
    deep.mkdir(parents=True)
    folder = scratch.temporary_folder(str(deep))
    assert len(str(folder)) <= scratch.SOCKET_ROOM and folder.is_dir()
    previous, tempfile.tempdir = tempfile.tempdir, str(folder)
    try:  # what course feedback's local pool does: a forkserver whose socket lives under it
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
            assert pool.submit(abs, -3).result(timeout=120) == 3
    finally:
        tempfile.tempdir = previous
