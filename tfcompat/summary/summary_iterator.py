"""`tf.compat.v1.train.summary_iterator`: the `Event` protos of a TensorBoard event file."""
from tensorboard.compat.proto import event_pb2

from tfcompat._api import tf_export
from tfcompat.io.tf_record import read_records


@tf_export(v1=["train.summary_iterator"])
def summary_iterator(path):
    """Yield each `Event` proto of the event file at `path`, in order, as TF's does (event
    files are TFRecord files; a damaged record raises DataLossError, a missing file
    NotFoundError)."""
    for record in read_records(path):
        yield event_pb2.Event.FromString(record)
