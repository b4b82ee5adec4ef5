"""How the canned estimators take an optimizer (`canned/optimizers.py`): a name ('Adagrad',
'Adam', 'Ftrl', 'RMSProp', 'SGD', with the estimator's default learning rate), an Optimizer,
or a callable returning one."""
from tfcompat.train.adagrad import AdagradOptimizer
from tfcompat.train.adam import AdamOptimizer
from tfcompat.train.ftrl import FtrlOptimizer
from tfcompat.train.gradient_descent import GradientDescentOptimizer
from tfcompat.train.optimizer import Optimizer
from tfcompat.train.rmsprop import RMSPropOptimizer

_OPTIMIZER_CLS_NAMES = {
    "Adagrad": AdagradOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}


def get_optimizer_instance(opt, learning_rate=None):
    """An Optimizer from a name (with `learning_rate`), an instance, or a callable."""
    if isinstance(opt, str):
        if opt in _OPTIMIZER_CLS_NAMES:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return _OPTIMIZER_CLS_NAMES[opt](learning_rate=learning_rate)
        raise ValueError("Unsupported optimizer name: {}. Supported names are: {}".format(
            opt, tuple(sorted(_OPTIMIZER_CLS_NAMES))))
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError("The given object is not an Optimizer instance. Given: {}".format(opt))
    return opt
