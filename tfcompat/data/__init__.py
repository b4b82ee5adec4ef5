"""tfcompat.data: `tf.data` (symbols are registered by the modules themselves)."""
from tfcompat.data import (dataset_ops, execution, experimental, iterator_ops,  # noqa: F401
                           optional_ops, options, readers, structure)
