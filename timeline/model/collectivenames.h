// CollectiveNames — the one rule for recognising a blocking collective by its name, without
// configuration: what the clock alignment, the collective view and the wait analysis go by when
// neither --align-on nor the config's event kinds say otherwise.
//
// A name is compared after folding case and dropping everything but letters and digits, so
// "all_reduce", "allreduce", "AllReduce", "gloo:all_reduce" and "nccl:all_reduce" are one word.
// Recognised (the folded name contains): allreduce, allgather, reducescatter, broadcast, barrier,
// alltoall — which covers c10d's and syncline.torch's record_collectives names
// (all_reduce, all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single, ...), DDP's
// ddp_allreduce, gloo and nccl ops — and NCCL's device kernels (ncclKernel_*,
// ncclDevKernel_*), which are their own class: on a GPU the kernel is the blocking part, while
// the CPU op that launched it returns at once. So when a timeline holds NCCL kernels, only the
// kernels count (Kind::Kernel), otherwise the named operations (Kind::Operation).
// Not recognised: point-to-point (send, recv, isend, and the kernels ncclKernel_SendRecv,
// ncclDevKernel_Send/Recv), "reduce" alone and anything async that
// merely launches (record_param_comms, which wraps every kind of communication).
// Neither are ATen tensor ops ("aten::broadcast_tensors") nor c10d's dispatcher ops
// ("c10d::allreduce_": they launch the work and return; the backend's "gloo:all_reduce" or the
// caller's "all_reduce" holds the wait).
// Examples: "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" → Kernel; "gloo:all_reduce" →
// Operation; "ddp_allreduce bucket 3" → Operation; "send" → None; "forward" → None.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace syncline {

class CollectiveNames
{
public:
    enum class Kind
    {
        None,
        Operation, // a named collective operation (CPU side, or a recorder's event)
        Kernel     // an NCCL device kernel
    };
    static Kind classify(std::string_view name);
    // Per name id of `names`, 1 when it is recognised: the Kernel names when there is any,
    // else the Operation names.
    template <class Names> static std::vector<uint8_t> recognise(const Names &names)
    {
        std::vector<uint8_t> kind(names.size(), 0);
        bool kernels = false;
        for (uint32_t id = 0; id < names.size(); ++id) {
            kind[id] = uint8_t(classify(names.name(id)));
            kernels = kernels || kind[id] == uint8_t(Kind::Kernel);
        }
        const uint8_t wanted = uint8_t(kernels ? Kind::Kernel : Kind::Operation);
        for (uint8_t &k : kind)
            k = k == wanted;
        return kind;
    }
};

} // namespace syncline
