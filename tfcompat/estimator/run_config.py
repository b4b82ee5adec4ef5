"""`tf.estimator.RunConfig`: where and how often an Estimator saves, logs and summarizes.

TF 1.15's arguments, defaults (a checkpoint every 600 s when neither `save_checkpoints_steps`
nor `save_checkpoints_secs` is given, summaries every 100 steps, 5 checkpoints kept), checks
and `replace()`. One process only: the cluster properties have their single-worker values,
and a `TF_CONFIG` naming a cluster, `device_fn`, and `train_distribute` / `eval_distribute`
strategies of several replicas raise NotImplementedError (a strategy of one replica, such as
MirroredStrategy on a machine with one device, trains as without it, as in TF). `session_config` is accepted (tfcompat sessions take no options).
"""
import copy
import json
import os

from tfcompat._api import tf_export

_USE_DEFAULT = object()

_REPLACEABLE = [
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute", "device_fn",
    "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
]

_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."

_CHECKS = [
    ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
    ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
    ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
    ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
    ("keep_checkpoint_every_n_hours", lambda v: v > 0,
     "keep_checkpoint_every_n_hours should be > 0"),
    ("log_step_count_steps", lambda v: v >= 0, "log_step_count_steps should be >= 0"),
    ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."),
    ("session_creation_timeout_secs", lambda v: v > 0,
     "session_creation_timeout_secs should be > 0"),
]


class TaskType(object):
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def _unsupported(what):
    raise NotImplementedError("RunConfig(%s): tfcompat runs Estimators in one process, without "
                              "device functions or strategies of several replicas; train "
                              "on several workers with Keras or a custom loop under "
                              "MultiWorkerMirroredStrategy (docs/distributed.md)" % what)


@tf_export("estimator.RunConfig")
class RunConfig(object):
    """The Estimator's run settings (see the module docstring for what is not supported)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, train_distribute=None, device_fn=None,
                 protocol=None, eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200,
                 checkpoint_save_graph_def=True):
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
        if tf_config.get("cluster"):
            _unsupported("TF_CONFIG with a cluster")
        if model_dir is None:
            model_dir = tf_config.get("model_dir")
        self._replace_fields(
            model_dir=os.fspath(model_dir) if model_dir is not None else None,
            tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs, session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps, train_distribute=train_distribute,
            device_fn=device_fn, protocol=protocol, eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs,
            checkpoint_save_graph_def=checkpoint_save_graph_def)

    def _replace_fields(self, **kwargs):
        for key, value in kwargs.items():
            if key not in _REPLACEABLE:
                raise ValueError("Replacing {} is not supported. Allowed properties are {}."
                                 .format(key, _REPLACEABLE))
            setattr(self, "_" + key, value)
        if "save_checkpoints_steps" in kwargs and kwargs["save_checkpoints_steps"] is not None \
                and "save_checkpoints_secs" not in kwargs:
            self._save_checkpoints_secs = None
        elif "save_checkpoints_secs" in kwargs and kwargs["save_checkpoints_secs"] is not None \
                and "save_checkpoints_steps" not in kwargs:
            self._save_checkpoints_steps = None
        if self._save_checkpoints_steps is not None and self._save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        for key, check, message in _CHECKS:
            value = getattr(self, "_" + key)
            if value is not None and not check(value):
                raise ValueError(message)
        for key in ("train_distribute", "eval_distribute", "experimental_distribute",
                    "device_fn"):
            value = getattr(self, "_" + key)
            if value is not None and getattr(value, "num_replicas_in_sync", None) != 1:
                _unsupported(key)
        return self

    def replace(self, **kwargs):
        """A copy with some properties changed (only the settable ones, as in TF)."""
        return copy.deepcopy(self)._replace_fields(**kwargs)

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    checkpoint_save_graph_def = property(lambda self: self._checkpoint_save_graph_def)

    cluster_spec = property(lambda self: {})
    is_chief = property(lambda self: True)
    master = property(lambda self: "")
    evaluation_master = property(lambda self: "")
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    task_id = property(lambda self: 0)
    task_type = property(lambda self: TaskType.WORKER)
    global_id_in_cluster = property(lambda self: 0)
    service = property(lambda self: None)

    def __repr__(self):
        return "RunConfig(%s)" % ", ".join("%s=%r" % (key, getattr(self, "_" + key))
                                           for key in _REPLACEABLE)
