"""Keras 2's device compatibility check: the first 'mixed_float16' Policy made in a process
logs (logger "tensorflow") whether this machine's GPUs run it quickly, i.e. are NVIDIA GPUs of
compute capability 7.0 or more; a warning without a GPU or with slower ones, info otherwise."""
import itertools
import logging

_logger = logging.getLogger("tensorflow")
_PREFIX = "Mixed precision compatibility check (mixed_float16): "
_WARNING_PREFIX = _PREFIX + "WARNING"
_OK_PREFIX = _PREFIX + "OK"
_WARNING_SUFFIX = ("If you will use compatible GPU(s) not attached to this host, e.g. by "
                   "running a multi-worker model, you can ignore this warning. This message "
                   "will only be logged once")
_logged = False


def _dedup_strings(strings):
    """Consecutive equal strings grouped: ['a', 'b', 'b'] -> ['a', 'b (x2)']."""
    result = []
    for string, group in itertools.groupby(strings):
        count = len(list(group))
        result.append(string if count == 1 else "%s (x%d)" % (string, count))
    return result


def log_compatibility(gpu_details):
    """Log Keras 2's message for GPUs given as (name, (major, minor) or None) pairs."""
    supported, unsupported = [], []
    for name, capability in gpu_details:
        if capability is None:
            unsupported.append(name + ", no compute capability (probably not an Nvidia GPU)")
            continue
        text = "%s, compute capability %d.%d" % (name, capability[0], capability[1])
        (supported if tuple(capability) >= (7, 0) else unsupported).append(text)
    if unsupported:
        message = _WARNING_PREFIX + "\n"
        if supported:
            message += ("Some of your GPUs may run slowly with dtype policy mixed_float16 "
                        "because they do not all have compute capability of at least 7.0. "
                        "Your GPUs:\n")
        elif len(unsupported) == 1:
            message += ("Your GPU may run slowly with dtype policy mixed_float16 because it "
                        "does not have compute capability of at least 7.0. Your GPU:\n")
        else:
            message += ("Your GPUs may run slowly with dtype policy mixed_float16 because they "
                        "do not have compute capability of at least 7.0. Your GPUs:\n")
        for text in _dedup_strings(supported + unsupported):
            message += "  " + text + "\n"
        message += ("See https://developer.nvidia.com/cuda-gpus for a list of GPUs and their "
                    "compute capabilities.\n" + _WARNING_SUFFIX)
        _logger.warning(message)
    elif not supported:
        _logger.warning("%s\nThe dtype policy mixed_float16 may run slowly because this "
                        "machine does not have a GPU. Only Nvidia GPUs with compute capability "
                        "of at least 7.0 run quickly with mixed_float16.\n%s"
                        % (_WARNING_PREFIX, _WARNING_SUFFIX))
    elif len(supported) == 1:
        _logger.info("%s\nYour GPU will likely run quickly with dtype policy mixed_float16 as "
                     "it has compute capability of at least 7.0. Your GPU: %s"
                     % (_OK_PREFIX, supported[0]))
    else:
        _logger.info("%s\nYour GPUs will likely run quickly with dtype policy mixed_float16 as "
                     "they all have compute capability of at least 7.0" % _OK_PREFIX)


def log_device_compatibility_check(policy_name):
    """Log the check for this machine's CUDA devices, once per process, for 'mixed_float16'
    (Keras 2 checks no other policy)."""
    global _logged
    if policy_name != "mixed_float16" or _logged:
        return
    _logged = True
    import torch
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    log_compatibility([(torch.cuda.get_device_name(i), torch.cuda.get_device_capability(i))
                       for i in range(count)])
