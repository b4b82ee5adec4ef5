"""Fixtures shared by the test files.

`fresh_names`: Keras numbers layers and models per session (`dense`, `dense_1`, ...) as
`tf.keras.backend.clear_session()` resets them in TF; a test that asserts generated names
starts from a cleared session. Files whose every test needs it set
`pytestmark = pytest.mark.usefixtures("fresh_names")`.

Every test starts from torch and numpy generators seeded by its own name, so an unseeded
random draw is the same on every run: a test passes or fails the same way in CI as here.
"""
import zlib

import numpy as np
import pytest
import torch

from tfcompat.keras import backend as K


@pytest.fixture
def fresh_names():
    K.clear_session()
    yield


@pytest.fixture(autouse=True)
def _seeded_by_test_name(request):
    seed = zlib.crc32(request.node.nodeid.encode())
    torch.manual_seed(seed)
    np.random.seed(seed)
