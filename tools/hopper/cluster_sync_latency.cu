// Latency of a thread block cluster's barrier and of distributed shared memory (DSMEM)
// in a dependent loop, one cluster of 1..16 blocks (one block per SM: 120 KB of shared
// memory each), 384 threads: the cost a layered LDPC decoder would pay per layer if one
// codeword's rows were split over a cluster (issue 9's latency target, docs/ldpc-gpu.md).
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cluster_sync_latency \
//       tools/hopper/cluster_sync_latency.cu && /tmp/cluster_sync_latency
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>

namespace cg = cooperative_groups;

#define CHECK(call)                                                  \
    do {                                                             \
        const cudaError_t err = (call);                              \
        if (err != cudaSuccess) {                                    \
            std::printf("%s: %s\n", #call, cudaGetErrorString(err)); \
            return 1;                                                \
        }                                                            \
    } while (0)

enum class step {
    block_barrier,          // __syncthreads()
    local_then_block,       // dependent local load, store, __syncthreads()
    cluster_barrier,        // cluster.sync(): arrive.release + wait.acquire
    cluster_relaxed,        // arrive.relaxed + wait: no memory ordering
    remote_load_then_sync,  // dependent load from the next block, store, cluster.sync()
    remote_store_then_sync, // store into the next block, cluster.sync(), local load
    remote_store_fence_relaxed, // store into the next block, fence.acq_rel.cluster,
                                // arrive.relaxed + wait, local load
};

__device__ __forceinline__ void cluster_arrive_relaxed_wait()
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}

template <step Step>
__global__ void loop_kernel(int iterations, unsigned* out)
{
    extern __shared__ unsigned words[];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
    unsigned* next = cluster.map_shared_rank(words, (rank + 1) % size);
    const unsigned t = threadIdx.x;
    words[t] = t;
    words[t + 1024] = t;
    cluster.sync();
    unsigned acc = 0;
    for (int i = 0; i < iterations; i++) {
        if constexpr (Step == step::block_barrier) {
            __syncthreads();
        } else if constexpr (Step == step::local_then_block) {
            acc += words[(t + acc) & 1023];
            words[t + 1024] = acc;
            __syncthreads();
        } else if constexpr (Step == step::cluster_barrier) {
            cluster.sync();
        } else if constexpr (Step == step::cluster_relaxed) {
            cluster_arrive_relaxed_wait();
        } else if constexpr (Step == step::remote_load_then_sync) {
            acc += next[(t + acc) & 1023];
            words[t + 1024] = acc;
            cluster.sync();
        } else if constexpr (Step == step::remote_store_then_sync) {
            next[t + 1024] = acc + i;
            cluster.sync();
            acc += words[((t + 1) & 1023) | 1024];
        } else {
            next[t + 1024] = acc + i;
            asm volatile("fence.acq_rel.cluster;\n" ::: "memory");
            cluster_arrive_relaxed_wait();
            acc += words[((t + 1) & 1023) | 1024];
        }
    }
    if (t == 0)
        out[blockIdx.x] = acc;
}

template <step Step>
int measure(const char* name, int cluster_size)
{
    constexpr int iterations = 20000, threads = 384;
    constexpr size_t smem = 120 * 1024;
    unsigned* out = nullptr;
    CHECK(cudaMalloc(&out, 64 * sizeof(unsigned)));
    CHECK(cudaFuncSetAttribute(
        loop_kernel<Step>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    CHECK(cudaFuncSetAttribute(
        loop_kernel<Step>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster_size;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster_size);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.attrs = &attribute;
    config.numAttrs = 1;
    cudaEvent_t begin, end;
    CHECK(cudaEventCreate(&begin));
    CHECK(cudaEventCreate(&end));
    CHECK(cudaLaunchKernelEx(&config, loop_kernel<Step>, 100, out)); // warm-up
    CHECK(cudaDeviceSynchronize());
    float best_ms = 1e30f;
    for (int run = 0; run < 5; run++) {
        CHECK(cudaEventRecord(begin));
        CHECK(cudaLaunchKernelEx(&config, loop_kernel<Step>, iterations, out));
        CHECK(cudaEventRecord(end));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, begin, end));
        best_ms = ms < best_ms ? ms : best_ms;
    }
    std::printf("%-44s cluster %2d: %7.1f ns a step\n",
                name,
                cluster_size,
                best_ms * 1e6f / iterations);
    CHECK(cudaEventDestroy(begin));
    CHECK(cudaEventDestroy(end));
    CHECK(cudaFree(out));
    return 0;
}

template <step Step>
int sweep(const char* name)
{
    for (int size : { 1, 2, 4, 8, 16 })
        if (measure<Step>(name, size))
            return 1;
    return 0;
}

int main()
{
    return sweep<step::block_barrier>("__syncthreads") ||
           sweep<step::local_then_block>("local load, store, __syncthreads") ||
           sweep<step::cluster_barrier>("cluster.sync (release / acquire)") ||
           sweep<step::cluster_relaxed>("cluster arrive.relaxed + wait") ||
           sweep<step::remote_load_then_sync>("remote load, store, cluster.sync") ||
           sweep<step::remote_store_then_sync>("remote store, cluster.sync, load") ||
           sweep<step::remote_store_fence_relaxed>(
               "remote store, fence, relaxed barrier, load");
}
