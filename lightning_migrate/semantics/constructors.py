"""The constructor keywords of Lightning's strategy classes, release by release (read from each release's
source with ``ast``; ``tests/real/test_registry.py`` checks them against the installed release).

A strategy object the codemod moves or renames keeps every argument the user wrote, so each argument must
mean the same thing to the class the target builds. Three roles are possible: a parameter of the class, a
keyword forwarded through ``**kwargs`` to torch's ``DistributedDataParallel`` (the DDP family) or FSDP, or an
error (``TypeError`` at construction). ``DDPPlugin(num_nodes=2)`` is a parameter in 1.4 but reaches torch DDP
in 1.6 (where it breaks ``fit``): the role changed, so such a rename does not keep behaviour.
"""

from __future__ import annotations

from typing import NamedTuple

from lightning_migrate.semantics.model import Obj, Version, v
from lightning_migrate.semantics.precision import Constructor, bind

# class -> (first minor line, parameters, whether other keywords are forwarded through **kwargs), oldest
# first. The deprecated 1.6/1.7 `*Plugin` aliases take their `*Strategy`'s arguments (see `signature`).
_ROWS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "DDPPlugin": (
        (
            "1.4",
            "parallel_devices num_nodes cluster_environment sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
        (
            "1.5",
            "parallel_devices num_nodes cluster_environment checkpoint_io sync_batchnorm "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period",
            True,
        ),
    ),
    "DDPStrategy": (
        (
            "1.6",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend",
            True,
        ),
        (
            "1.7",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend timeout",
            True,
        ),
        (
            "2.0",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend timeout start_method",
            True,
        ),
    ),
    "DDPSpawnPlugin": (
        (
            "1.4",
            "parallel_devices num_nodes cluster_environment sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
        (
            "1.5",
            "parallel_devices num_nodes cluster_environment checkpoint_io sync_batchnorm "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
    ),
    "DDPSpawnStrategy": (
        (
            "1.6",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper process_group_backend",
            True,
        ),
        (
            "1.7",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper process_group_backend timeout "
            "start_method",
            True,
        ),
    ),
    "DDP2Plugin": (
        (
            "1.4",
            "parallel_devices num_nodes cluster_environment sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
        (
            "1.5",
            "parallel_devices num_nodes cluster_environment checkpoint_io sync_batchnorm "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period",
            True,
        ),
    ),
    "DDP2Strategy": (
        (
            "1.6",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend",
            True,
        ),
    ),
    "DataParallelPlugin": (
        ("1.4", "parallel_devices", False),
        ("1.5", "parallel_devices checkpoint_io", False),
    ),
    "DataParallelStrategy": (("1.6", "accelerator parallel_devices checkpoint_io precision_plugin", False),),
    "DeepSpeedPlugin": (
        (
            "1.4",
            "zero_optimization stage remote_device offload_optimizer offload_parameters "
            "offload_params_device nvme_path params_buffer_count params_buffer_size "
            "max_in_cpu offload_optimizer_device optimizer_buffer_count block_size "
            "queue_depth single_submit overlap_events thread_count pin_memory sub_group_size "
            "contiguous_gradients overlap_comm allgather_partitions reduce_scatter "
            "allgather_bucket_size reduce_bucket_size zero_allow_untested_optimizer "
            "logging_batch_size_per_gpu config logging_level num_nodes parallel_devices "
            "cluster_environment loss_scale initial_scale_power loss_scale_window hysteresis "
            "min_loss_scale partition_activations cpu_checkpointing "
            "contiguous_memory_optimization synchronize_checkpoint_boundary save_full_weights "
            "cpu_offload cpu_offload_params cpu_offload_use_pin_memory partition_module",
            False,
        ),
        (
            "1.5",
            "zero_optimization stage remote_device offload_optimizer offload_parameters "
            "offload_params_device nvme_path params_buffer_count params_buffer_size "
            "max_in_cpu offload_optimizer_device optimizer_buffer_count block_size "
            "queue_depth single_submit overlap_events thread_count pin_memory sub_group_size "
            "contiguous_gradients overlap_comm allgather_partitions reduce_scatter "
            "allgather_bucket_size reduce_bucket_size zero_allow_untested_optimizer "
            "logging_batch_size_per_gpu config logging_level num_nodes parallel_devices "
            "cluster_environment loss_scale initial_scale_power loss_scale_window hysteresis "
            "min_loss_scale partition_activations cpu_checkpointing "
            "contiguous_memory_optimization synchronize_checkpoint_boundary load_full_weights",
            False,
        ),
    ),
    "DeepSpeedStrategy": (
        (
            "1.6",
            "accelerator zero_optimization stage remote_device offload_optimizer "
            "offload_parameters offload_params_device nvme_path params_buffer_count "
            "params_buffer_size max_in_cpu offload_optimizer_device optimizer_buffer_count "
            "block_size queue_depth single_submit overlap_events thread_count pin_memory "
            "sub_group_size contiguous_gradients overlap_comm allgather_partitions "
            "reduce_scatter allgather_bucket_size reduce_bucket_size "
            "zero_allow_untested_optimizer logging_batch_size_per_gpu config logging_level "
            "parallel_devices cluster_environment loss_scale initial_scale_power "
            "loss_scale_window hysteresis min_loss_scale partition_activations "
            "cpu_checkpointing contiguous_memory_optimization synchronize_checkpoint_boundary "
            "load_full_weights precision_plugin process_group_backend",
            False,
        ),
        (
            "2.5",
            "accelerator zero_optimization stage remote_device offload_optimizer "
            "offload_parameters offload_params_device nvme_path params_buffer_count "
            "params_buffer_size max_in_cpu offload_optimizer_device optimizer_buffer_count "
            "block_size queue_depth single_submit overlap_events thread_count pin_memory "
            "sub_group_size contiguous_gradients overlap_comm allgather_partitions "
            "reduce_scatter allgather_bucket_size reduce_bucket_size "
            "zero_allow_untested_optimizer logging_batch_size_per_gpu config logging_level "
            "parallel_devices cluster_environment loss_scale initial_scale_power "
            "loss_scale_window hysteresis min_loss_scale partition_activations "
            "cpu_checkpointing contiguous_memory_optimization synchronize_checkpoint_boundary "
            "load_full_weights precision_plugin process_group_backend timeout "
            "exclude_frozen_parameters",
            False,
        ),
    ),
    "HorovodPlugin": (
        ("1.4", "parallel_devices", False),
        ("1.5", "parallel_devices checkpoint_io", False),
    ),
    "HorovodStrategy": (("1.6", "accelerator parallel_devices checkpoint_io precision_plugin", False),),
    "DDPShardedPlugin": (
        (
            "1.4",
            "parallel_devices num_nodes cluster_environment sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
        (  # 1.5: no __init__ of its own, DDPPlugin's
            "1.5",
            "parallel_devices num_nodes cluster_environment checkpoint_io sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper model_averaging_period",
            True,
        ),
    ),
    "DDPShardedStrategy": (
        (
            "1.6",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend",
            True,
        ),
        (
            "1.7",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper model_averaging_period "
            "process_group_backend timeout",
            True,
        ),
    ),
    "DDPSpawnShardedPlugin": (
        (
            "1.4",
            "parallel_devices num_nodes cluster_environment sync_batchnorm ddp_comm_state "
            "ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
        (
            "1.5",
            "parallel_devices num_nodes cluster_environment checkpoint_io sync_batchnorm "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper",
            True,
        ),
    ),
    "DDPSpawnShardedStrategy": (
        (
            "1.6",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper process_group_backend",
            True,
        ),
        (
            "1.7",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "ddp_comm_state ddp_comm_hook ddp_comm_wrapper process_group_backend timeout "
            "start_method",
            True,
        ),
    ),
    "DDPFullyShardedPlugin": (
        (
            "1.4",
            "cpu_offload flatten_parameters reshard_after_forward move_grads_to_cpu "
            "fp32_reduce_scatter compute_dtype bucket_cap_mb min_num_params state_dict_to_cpu "
            "parallel_devices cluster_environment",
            False,
        ),
        (
            "1.5",
            "cpu_offload flatten_parameters reshard_after_forward move_grads_to_cpu "
            "fp32_reduce_scatter compute_dtype bucket_cap_mb min_num_params state_dict_to_cpu "
            "parallel_devices cluster_environment checkpoint_io",
            False,
        ),
    ),
    "DDPFullyShardedStrategy": (
        (
            "1.6",
            "accelerator cpu_offload flatten_parameters reshard_after_forward "
            "move_grads_to_cpu fp32_reduce_scatter compute_dtype bucket_cap_mb min_num_params "
            "state_dict_to_cpu parallel_devices cluster_environment checkpoint_io "
            "precision_plugin process_group_backend",
            False,
        ),
    ),
    "SingleDevicePlugin": (
        ("1.4", "device", False),
        ("1.5", "device checkpoint_io", False),
    ),
    "SingleDeviceStrategy": (("1.6", "device accelerator checkpoint_io precision_plugin", False),),
    "SingleTPUPlugin": (
        ("1.4", "device debug", False),
        ("1.5", "device checkpoint_io debug", False),
    ),
    "SingleTPUStrategy": (("1.6", "device accelerator checkpoint_io precision_plugin debug", False),),
    "TPUSpawnPlugin": (
        ("1.4", "parallel_devices debug", True),
        ("1.5", "parallel_devices checkpoint_io debug", True),
    ),
    "TPUSpawnStrategy": (("1.6", "accelerator parallel_devices checkpoint_io precision_plugin debug", True),),
    "IPUPlugin": (
        (
            "1.4",
            "device_iterations autoreport autoreport_dir parallel_devices cluster_environment "
            "training_opts inference_opts",
            False,
        ),
        (
            "1.5",
            "device_iterations autoreport autoreport_dir parallel_devices cluster_environment "
            "checkpoint_io training_opts inference_opts",
            False,
        ),
    ),
    "IPUStrategy": (
        (
            "1.6",
            "accelerator device_iterations autoreport autoreport_dir parallel_devices "
            "cluster_environment checkpoint_io precision_plugin training_opts inference_opts",
            False,
        ),
    ),
    "DDPFullyShardedNativeStrategy": (
        (
            "1.7",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "process_group_backend cpu_offload backward_prefetch mixed_precision",
            True,
        ),
        (
            "1.9",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "process_group_backend cpu_offload backward_prefetch mixed_precision "
            "activation_checkpointing",
            True,
        ),
    ),
    "FSDPStrategy": (
        (
            "2.0",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "process_group_backend cpu_offload mixed_precision activation_checkpointing",
            True,
        ),
        (
            "2.1",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "process_group_backend timeout cpu_offload mixed_precision auto_wrap_policy "
            "activation_checkpointing activation_checkpointing_policy sharding_strategy "
            "state_dict_type",
            True,
        ),
        (
            "2.3",
            "accelerator parallel_devices cluster_environment checkpoint_io precision_plugin "
            "process_group_backend timeout cpu_offload mixed_precision auto_wrap_policy "
            "activation_checkpointing activation_checkpointing_policy sharding_strategy "
            "state_dict_type device_mesh",
            True,
        ),
    ),
    "XLAStrategy": (
        ("2.0", "accelerator parallel_devices checkpoint_io precision_plugin debug", True),
        (
            "2.1",
            "accelerator parallel_devices checkpoint_io precision_plugin debug sync_module_states",
            True,
        ),
    ),
    "SingleDeviceXLAStrategy": (("2.1", "device accelerator checkpoint_io precision_plugin debug", False),),
}


class Signature(NamedTuple):
    """A constructor's parameters from a release on: in the order ``__init__`` takes them (every one may be
    passed positionally: none is keyword-only in any release; a deprecated alias hands ``*args`` on to the
    class it forwards to), as a set, and whether it forwards other keywords through ``**kwargs``."""

    since: Version
    order: tuple[str, ...]
    names: frozenset[str]
    forwards: bool


SIGNATURES: dict[str, tuple[Signature, ...]] = {
    cls: tuple(
        Signature(v(since), tuple(params.split()), frozenset(params.split()), forwards)
        for since, params, forwards in rows
    )
    for cls, rows in _ROWS.items()
}

FORWARDED = "forwarded"  # the role of a keyword that goes through **kwargs
PARAMETER = "parameter"
REJECTED = "rejected"


def signature(cls: str, version: Version, renamed_to: str = "") -> Signature | None:
    """The signature of ``cls`` in ``version``; None if unknown. ``renamed_to``: the 1.6 name of a
    ``*Plugin`` class, whose deprecated alias takes the same arguments."""
    if renamed_to and version >= v("1.6"):
        cls = renamed_to
    rows = [row for row in SIGNATURES.get(cls, ()) if row.since <= version]
    return rows[-1] if rows else None


def parameters(cls: str, version: Version, renamed_to: str = "") -> tuple[frozenset[str], bool] | None:
    """The parameters of ``cls`` in ``version`` and whether it forwards other keywords; None if unknown."""
    found = signature(cls, version, renamed_to)
    return (found.names, found.forwards) if found else None


def role(cls: str, keyword: str, version: Version, renamed_to: str = "") -> str | None:
    """What ``cls(keyword=...)`` does with the keyword in ``version`` (None: the class is not tabled)."""
    found = parameters(cls, version, renamed_to)
    if found is None:
        return None
    names, forwards = found
    if keyword in names:
        return PARAMETER
    return FORWARDED if forwards else REJECTED


def defining_class(cls: str, version: Version, renamed_to: str = "") -> str:
    """The class whose ``__init__`` raises for an unexpected keyword (the 1.6/1.7 aliases call their base)."""
    return renamed_to if renamed_to and version >= v("1.6") else cls


# --- The constructors of the cluster-environment and checkpoint-IO plugins, per release -------------------
# A call keeps these plugins as it wrote them (``Setup.plugins``); what the model checks is that the release
# can build them with the keywords written (Python's TypeError otherwise). Checked against each release with
# inspect.signature by tests/real/test_plugins_real.py.

_V14, _V16, _V17, _V18 = v("1.4"), v("1.6"), v("1.7"), v("1.8")
_NONE = Constructor(None)  # no __init__ of its own

# name -> constructors, newest first (from the first release that exports the class; see classes.py)
PLUGIN_CONSTRUCTORS: dict[str, tuple[tuple[Version, Constructor], ...]] = {
    "LightningEnvironment": ((_V14, Constructor("LightningEnvironment")),),
    "SLURMEnvironment": (
        (_V18, Constructor("SLURMEnvironment", (("auto_requeue", False), ("requeue_signal", False)))),
        (_V16, Constructor("SLURMEnvironment", (("auto_requeue", False),))),
        (_V14, _NONE),
    ),
    # 1.6 gave the TorchElastic and Kubeflow environments an __init__ of no arguments (gone again in 1.7)
    "TorchElasticEnvironment": (
        (_V17, _NONE),
        (_V16, Constructor("TorchElasticEnvironment")),
        (_V14, _NONE),
    ),
    "KubeflowEnvironment": (
        (_V17, _NONE),
        (_V16, Constructor("KubeflowEnvironment")),
        (_V14, _NONE),
    ),
    "TorchCheckpointIO": ((_V14, _NONE),),
}


def plugin_constructor(name: str, version: Version) -> Constructor | None:
    rows = PLUGIN_CONSTRUCTORS.get(name, ())
    return next((c for since, c in rows if version >= since), None)


def construct_plugin(obj: Obj, version: Version) -> None:
    found = plugin_constructor(obj.cls, version)
    if found is not None:
        bind(found, obj)
