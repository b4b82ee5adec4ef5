"""tfcompat.train: TF's `tf.train` modules (symbols are registered by the modules themselves)."""
from tfcompat.train import training_util  # noqa: F401
from tfcompat.train import optimizer  # noqa: F401
from tfcompat.train import (adadelta, adagrad, adagrad_da, adam, ftrl,  # noqa: F401
                            gradient_descent, momentum, proximal_adagrad,
                            proximal_gradient_descent, rmsprop)
from tfcompat.train import saver  # noqa: F401
from tfcompat.train import checkpoint  # noqa: F401
from tfcompat.train import learning_rate_decay, moving_averages, schedules  # noqa: F401
from tfcompat.train import (session_run_hook, basic_session_run_hooks,  # noqa: F401
                            monitored_session)
from tfcompat.train import coordinator, input, queue_runner  # noqa: F401,A004
from tfcompat.train import device_setter  # noqa: F401
