"""The command line's process-wide set-up."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from voicecoach.app.cli import main


def test_every_command_runs_numpy_on_one_blas_thread() -> None:
    threadpool_limits(2, user_api="blas")  # OpenBLAS's default on this 2-core machine
    with pytest.raises(SystemExit):
        main(["--help"])  # before any command's own work
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas, "numpy loads a BLAS"
    assert [pool["num_threads"] for pool in blas] == [1] * len(blas)
