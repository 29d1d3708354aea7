// libscale._core.spec: TrainingConfig, DataPipeline and CheckpointPolicy, bound from their
// option tables (spec/training_config.hpp, option_fields.hpp): a new training option is a
// new attribute, keyword and dict key with no line here.
#include "libscale/spec/training_config.hpp"
#include "../common.hpp"
#include "../option_fields.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale_py {

using namespace libscale;

void register_spec_training_config(py::module_& m) {
    py::class_<DataPipeline> data(m, "DataPipeline",
                                  "Where a step's tokens come from (defaults: pretokenized, in the page cache).");
    def_option_init(data, data_options(), "Every data option by keyword.");
    def_option_fields(data, data_options(), Access::read_write);

    py::class_<CheckpointPolicy> ckpt(m, "CheckpointPolicy", "How often the training state is written, and how fast.");
    def_option_init(ckpt, checkpoint_options(), "Every checkpoint option by keyword.");
    def_option_fields(ckpt, checkpoint_options(), Access::read_write);

    py::class_<TrainingConfig> cfg(
        m, "TrainingConfig", "How a run is laid out: GPUs, batch, sharding strategy, input pipeline, checkpoints.");
    def_option_init(cfg, training_options(),
                    "Every training option by keyword (enums as strings; None: not set, the core's rule), and "
                    "data= / checkpoint= as a DataPipeline / CheckpointPolicy or a dict of their options.");
    def_option_fields(cfg, training_options(), Access::read_write, {"data", "checkpoint"});
    // Members, so that cfg.data.pretokenized = False writes through.
    cfg.def_readwrite("data", &TrainingConfig::data).def_readwrite("checkpoint", &TrainingConfig::checkpoint);
    // Not an option: reduce_dtype's width, as the JSON outputs have carried it.
    cfg.def_property_readonly(
        "reduce_bytes", [](const TrainingConfig& c) { return c.reduce_bytes; },
        "reduce_dtype's bytes per gradient element: 2 (bf16) or 4 (fp32)");

    py::class_<DeviceMesh>(m, "DeviceMesh",
                           "How a run's GPUs split (torchtitan's ParallelDims): HSDP replicas × FSDP shards × "
                           "context-parallel × tensor-parallel ranks, and expert-parallel ranks inside the shards.")
        .def_readonly("dp_replicate", &DeviceMesh::dp_replicate, "HSDP replicas (DDP and ZeRO: every rank)")
        .def_readonly("dp_shard", &DeviceMesh::dp_shard, "FSDP shards of a replica that hold distinct batches")
        .def_readonly("cp", &DeviceMesh::cp, "context-parallel ranks of a sequence")
        .def_readonly("tp", &DeviceMesh::tp, "tensor-parallel ranks of a layer, inside one node")
        .def_readonly("ep", &DeviceMesh::ep,
                      "expert-parallel ranks a mixture of experts' experts split over (inside the shard group)")
        .def_readonly("ulysses", &DeviceMesh::ulysses,
                      "context parallel by Ulysses' all-to-alls rather than the ring (context_parallel_method)")
        .def_property_readonly("expert_shard_group", &DeviceMesh::expert_shard_group,
                               "GPUs one expert's parameters are sharded over: shard_group / ep")
        .def_property_readonly("shard_group", &DeviceMesh::shard_group,
                               "GPUs each FSDP all-gather and reduce-scatter spans: dp_shard × cp")
        .def_property_readonly("data_parallel", &DeviceMesh::data_parallel,
                               "ranks holding distinct micro-batches: dp_replicate × dp_shard")
        .def_property_readonly("gpus", &DeviceMesh::gpus, "dp_replicate × dp_shard × cp × tp")
        .def("__str__", [](const DeviceMesh& d) { return format_mesh(d); })
        .def("__repr__", [](const DeviceMesh& d) { return "DeviceMesh(" + format_mesh(d) + ")"; });
    m.def("device_mesh", &device_mesh, py::arg("config"), py::arg("gpus_per_node"),
          "The device mesh of a configuration that keeps the parallel rules; HSDP shards inside a node of "
          "gpus_per_node GPUs.");
}

}  // namespace libscale_py
