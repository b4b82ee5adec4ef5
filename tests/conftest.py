"""Fixtures shared by the test files.

`fresh_names`: Keras numbers layers and models per session (`dense`, `dense_1`, ...) as
`tf.keras.backend.clear_session()` resets them in TF; a test that asserts generated names
starts from a cleared session. Files whose every test needs it set
`pytestmark = pytest.mark.usefixtures("fresh_names")`.
"""
import pytest

from tfcompat.keras import backend as K


@pytest.fixture
def fresh_names():
    K.clear_session()
    yield
