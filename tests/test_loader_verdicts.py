"""The sentences notebook 05 prints about its measurements follow the numbers on both sides of
every threshold: a page that says workers helped only when its own table shows it."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import datasets
from helpers import loader_verdicts as lv


@given(st.floats(0.01, 1000), st.floats(0.01, 1000))
def test_compare_names_the_side_and_leaves_the_middle_alone(before, after):
    said = lv.compare(before, after)
    if after < lv.CLEARLY * before:
        assert said == "shorter"
    elif after > before / lv.CLEARLY:
        assert said == "longer"
    else:
        assert said == "about the same"


def test_machine_line_says_whether_processes_took_turns():
    assert "took turns" in lv.machine_line(cores=2, load=10.4) and "10.4" in lv.machine_line(2, 10.4)
    assert "not all busy" in lv.machine_line(cores=2, load=0.3)


def steps(worker_wait, worker_compute=0.7, load=0.5):
    return lv.step_verdicts((0.3, 0.6), (6.0, 0.7), (worker_wait, worker_compute), (0.1, 0.5),
                            cores=2, load=load)


def test_step_verdicts_say_workers_helped_only_when_the_wait_fell():
    helped = " ".join(steps(2.0))
    assert "cut that wait to 2.00 ms" in helped and "did not" not in helped
    for slower in (6.0, 9.0):                    # about the same, and longer
        said = " ".join(steps(slower))
        assert "did not cut the wait" in said and "cut that wait" not in said
    assert "other programs" in " ".join(steps(9.0, load=10.0))
    assert "other programs" not in " ".join(steps(9.0, load=1.0))


def test_step_verdicts_name_the_steps_own_compute_only_when_it_grew():
    assert "took cores from it" in " ".join(steps(2.0, worker_compute=1.5))
    assert "took cores" not in " ".join(steps(2.0, worker_compute=0.75))


def test_step_verdicts_on_whole_batches_follow_the_numbers():
    fast = lv.step_verdicts((0.3, 0.6), (6.0, 0.7), (2.0, 0.7), (0.1, 0.5), cores=2, load=1)
    assert "cut the wait from 0.30 ms" in fast[0]
    for whole in (0.32, 0.4):
        slow = lv.step_verdicts((0.3, 0.6), (6.0, 0.7), (2.0, 0.7), (whole, 0.5), cores=2, load=1)
        assert "did not cut the wait" in slow[0] and f"{whole:.2f} ms a step" in slow[0]


def table(t4_kept=0.15, small_fresh=0.4, large_fresh=0.45):
    return {8: {"0": 0.07, "2": small_fresh},
            64: {"0": 0.56, "2": large_fresh, "2 kept": 0.29, "4 kept": t4_kept}}


def test_epoch_table_leaves_unmeasured_columns_blank():
    text = lv.epoch_table(table(), 0.008)
    head, small, large = text.splitlines()
    assert "items of 8 ms" in head and head.index("4 kept workers") > head.index("2 kept workers")
    assert small.rstrip().endswith("x") and len(small.rstrip()) < len(large.rstrip())
    assert "560 ms  1.0x" in large and "150 ms  3.7x" in large


def test_worker_verdicts_say_four_waiting_workers_beat_two_only_when_measured():
    assert "4 workers were faster than 2" in " ".join(lv.worker_verdicts(table(), 0.008, cores=2))
    said = " ".join(lv.worker_verdicts(table(t4_kept=0.28), 0.008, cores=2))
    assert "4 workers were not faster than 2" in said


@pytest.mark.parametrize("large_fresh", [0.45, 0.62])
def test_break_even_is_the_datasets_arithmetic_and_each_row_is_placed_against_it(large_fresh):
    lines = lv.worker_verdicts(table(large_fresh=large_fresh), 0.008, cores=2)
    startup = datasets.startup_seconds(0.56, large_fresh, 2)
    line = datasets.break_even_seconds(startup, 2)
    assert f"start-up about {startup * 1000:.0f} ms" in lines[3]
    assert f"more than {line * 1000:.0f} ms" in lines[3] and f"{math.ceil(line / 0.008)} items" in lines[3]
    small, large = lines[4], lines[5]
    assert "below that line" in small and "slower" in small and "disagrees" not in small
    if large_fresh < 0.56:
        assert "above that line" in large and "faster" in large
    else:
        assert "below that line" in large and "slower" in large
    assert "disagrees" not in large


def test_a_row_on_the_wrong_side_of_the_line_is_said_to_disagree():
    lines = lv.worker_verdicts(table(small_fresh=0.05), 0.008, cores=2)
    assert "below that line" in lines[4] and "faster" in lines[4] and "disagrees" in lines[4]


def test_keeping_workers_is_said_to_save_the_start_up_only_when_it_did():
    assert "Keeping the 2 workers saved 160 ms" in " ".join(lv.worker_verdicts(table(), 0.008, cores=2))
    said = " ".join(lv.worker_verdicts(table(large_fresh=0.30), 0.008, cores=2))
    assert "saved no clear time" in said


def test_an_unknown_load_adds_no_claim_about_other_programs(monkeypatch):
    monkeypatch.setattr(lv, "load_average", lambda: None)
    said = " ".join(lv.step_verdicts((0.3, 0.6), (6.0, 0.7), (9.0, 0.7), (0.1, 0.5), cores=2))
    assert "did not cut the wait" in said and "other programs" not in said
    assert "unknown" in lv.machine_line(cores=2)
