"""`tf.keras.utils.set_random_seed` (Keras 2's `keras/utils/tf_utils.py`)."""
import random

import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import random_seed


@tf_export("keras.utils.set_random_seed")
def set_random_seed(seed):
    """Seeds Python's `random`, numpy's global generator and TF's global seed at once, as
    Keras 2 does."""
    if not isinstance(seed, int):
        raise ValueError("Expected `seed` argument to be an integer. Received: seed=%s (of "
                         "type %s)" % (seed, type(seed)))
    random.seed(seed)
    np.random.seed(seed)
    random_seed.set_random_seed(seed)
