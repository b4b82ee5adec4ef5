"""TF 1.x `tf.logging` and `tf.get_logger`: Python's logger named "tensorflow".

As in TF 1.15 the logger is configured on first use: unless the root logger already has
handlers, it gets a stderr handler with Python's BASIC_FORMAT ("INFO:tensorflow:message"); in an
interactive interpreter it logs to stdout at INFO. Verbosity is the logger's level, so the
default is the root logger's WARN. Other tfcompat modules log through the same logger. As TF
sets it, the logger's `findCaller` names the line that called tf.logging (a handler printing
file:line, such as absl's under tf.app.run, shows the script's line, not this module's).
"""
import logging
import sys
import threading
import traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN

from tfcompat._api import export_constant, tf_export

for _name, _level in (("DEBUG", DEBUG), ("INFO", INFO), ("WARN", WARN), ("ERROR", ERROR),
                      ("FATAL", FATAL)):
    export_constant(_level, v1=["logging." + _name])
del _name, _level

_logger = None
_logger_lock = threading.Lock()
_log_counter_per_token = {}


# Frames of these files are skipped when a log record names its caller.
_LOGGING_FILES = frozenset((sys._getframe().f_code.co_filename,
                            logging.Logger.findCaller.__code__.co_filename))


def _caller_frame():
    """The innermost frame outside this module and Python's logging: the tf.logging caller."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in _LOGGING_FILES:
        frame = frame.f_back
    return frame


def _find_caller(stack_info=False, stacklevel=1):
    """`findCaller` of the "tensorflow" logger, as TF sets it: (file, line, function, stack) of
    the code calling tf.logging.* or the logger. For a direct `tf.get_logger().info(...)`, TF's
    frame counting names the first frame outside the calling file; this names the caller."""
    frame = _caller_frame()
    if frame is None:
        return "(unknown file)", 0, "(unknown function)", None
    stack = None
    if stack_info:
        stack = "Stack (most recent call last):\n" + \
            "".join(traceback.format_stack(frame)).rstrip("\n")
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, stack


def _interactive():
    return hasattr(sys, "ps1") or bool(sys.flags.interactive)


@tf_export("get_logger")
def get_logger():
    """The "tensorflow" logger, given TF's handler the first time (see the module doc)."""
    global _logger
    with _logger_lock:
        if _logger is None:
            logger = logging.getLogger("tensorflow")
            logger.findCaller = _find_caller
            if not logging.getLogger().handlers:
                if _interactive():
                    logger.setLevel(INFO)
                handler = logging.StreamHandler(sys.stdout if _interactive() else sys.stderr)
                handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


@tf_export(v1=["logging.log"])
def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


@tf_export(v1=["logging.debug"])
def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


@tf_export(v1=["logging.info"])
def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


@tf_export(v1=["logging.warn"])
def warn(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


@tf_export(v1=["logging.warning"])
def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


@tf_export(v1=["logging.error"])
def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


@tf_export(v1=["logging.fatal"])
def fatal(msg, *args, **kwargs):
    """Logs at FATAL (50); like TensorFlow's, it does not exit."""
    get_logger().fatal(msg, *args, **kwargs)


@tf_export(v1=["logging.vlog"])
def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


@tf_export(v1=["logging.TaskLevelStatusMessage"])
def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    error(msg)


@tf_export(v1=["logging.flush"])
def flush():
    """TensorFlow 1.x's `tf.logging.flush` raises NotImplementedError; so does this one."""
    raise NotImplementedError("tf.logging.flush is not implemented (TensorFlow 1.x raises "
                              "NotImplementedError here too); flush the handlers of "
                              "tf.get_logger() instead")


def _caller_location():
    """(file, line) of the first caller outside this module: the token for log_every_n."""
    frame = _caller_frame()
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("<unknown>", 0)


def _next_count(token):
    """How often `token` was seen before (0 the first time)."""
    _log_counter_per_token[token] = _log_counter_per_token.get(token, -1) + 1
    return _log_counter_per_token[token]


@tf_export(v1=["logging.log_if"])
def log_if(level, msg, condition, *args):
    if condition:
        vlog(level, msg, *args)


@tf_export(v1=["logging.log_every_n"])
def log_every_n(level, msg, n, *args):
    """Logs on the 1st, (n+1)th, (2n+1)th ... call from the same source line."""
    count = _next_count(_caller_location())
    log_if(level, msg, not count % n, *args)


@tf_export(v1=["logging.log_first_n"])
def log_first_n(level, msg, n, *args):
    """Logs the first `n` calls from the same source line."""
    count = _next_count(_caller_location())
    log_if(level, msg, count < n, *args)


@tf_export(v1=["logging.get_verbosity"])
def get_verbosity():
    """The effective level of the "tensorflow" logger (WARN = 30 unless set)."""
    return get_logger().getEffectiveLevel()


@tf_export(v1=["logging.set_verbosity"])
def set_verbosity(v):
    """Messages below level `v` (tf.logging.INFO, ... or a number) are dropped."""
    get_logger().setLevel(v)
