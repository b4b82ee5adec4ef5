"""`tf.distribute.ReduceOp`: how values of the replicas combine."""
import enum

from tfcompat._api import tf_export


@tf_export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    """SUM adds the replicas' values; MEAN divides that sum by the number of replicas."""
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp of a `tf.VariableAggregation` (SUM, MEAN; others have none)."""
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError("Could not convert from `tf.VariableAggregation` %s to "
                             "`tf.distribute.ReduceOp` type" % (aggregation,))
        return ReduceOp[name]


def as_reduce_op(value):
    """A ReduceOp from a ReduceOp or its name ("sum", "MEAN"), as TF's APIs accept both."""
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str) and value.upper() in ReduceOp.__members__:
        return ReduceOp[value.upper()]
    raise ValueError("reduce_op must be a tf.distribute.ReduceOp (SUM or MEAN), got %r"
                     % (value,))
