"""tfcompat.summary: TF's `tf.summary` (TF1 ops and FileWriter, TF2 writers) and
`tf.contrib.summary`, writing TensorBoard event files."""
from tfcompat.summary import summary, summary_iterator, writer, summary_v2  # noqa: F401
