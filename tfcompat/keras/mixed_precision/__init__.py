"""`tf.keras.mixed_precision` (Keras 2, TF 2.15): dtype policies, AutoCastVariable, and the
LossScaleOptimizer; the registry fills the namespace."""
from tfcompat.keras.mixed_precision.policy import (  # noqa: F401
    Policy, global_policy, set_global_policy)
from tfcompat.keras.mixed_precision.loss_scale_optimizer import (  # noqa: F401,E402
    LossScaleOptimizer)
