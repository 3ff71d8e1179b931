// K-Means, the second GPU-LocalTM benchmark (seed 003 §5.1.2), written from the paper's
// description: one iteration over 256 3-D points, one per thread of a block, and K centers. Each
// thread finds its point's closest center (in parallel: no sharing), then adds the point to that
// center's sums and count in shared memory. The update is the transactional region: "several
// work-items will try to modify the same center speculatively", a read-modify-write of four words.
// The sums live as a structure of arrays (x[K], y[K], z[K], count[K]): for K >= 32 the four words
// of a center sit in one bank (003: "each one of the K 3-dimensional centers is stored in a single
// bank"), so different centers alias in the Bloom signatures. Coordinates are integers, so the
// sums do not depend on the order the transactions commit in.
//
// km_tx: the update as a transaction (kernels/smemsim_tm.cuh); km_serial: TX. Serialization, the
// threads taking turns. Both write the new centers (sum / count, or the old center for an empty
// cluster) to out[3c..3c+2] and the counts to out[3K + c].
#include "smemsim_tm.cuh"

#define KM_MAX_K 256

__device__ static unsigned km_closest(const int* cx, const int* cy, const int* cz, int k, int px,
                                      int py, int pz) {
  unsigned best = 0;
  int best_d = 0x7fffffff;
  for (int c = 0; c < k; ++c) {
    const int dx = px - cx[c], dy = py - cy[c], dz = pz - cz[c];
    const int d = dx * dx + dy * dy + dz * dz;
    if (d < best_d) {  // ties: the lowest center
      best_d = d;
      best = c;
    }
  }
  return best;
}

// points: x[n], y[n], z[n]; centers: x[k], y[k], z[k].
__device__ static void km_load(const int* points, const int* centers, int k, int* cx, int* cy,
                               int* cz, int* sx, int* sy, int* sz, int* cnt) {
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    cx[c] = centers[c];
    cy[c] = centers[k + c];
    cz[c] = centers[2 * k + c];
    sx[c] = sy[c] = sz[c] = cnt[c] = 0;
  }
}

__device__ static void km_store(const int* cx, const int* cy, const int* cz, const int* sx,
                                const int* sy, const int* sz, const int* cnt, int k, int* out) {
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    const int n = cnt[c];
    out[3 * c] = n ? sx[c] / n : cx[c];
    out[3 * c + 1] = n ? sy[c] / n : cy[c];
    out[3 * c + 2] = n ? sz[c] / n : cz[c];
    out[3 * k + c] = n;
  }
}

extern "C" __global__ void km_tx(const int* points, const int* centers, int k, int* out) {
  __shared__ int cx[KM_MAX_K], cy[KM_MAX_K], cz[KM_MAX_K];
  __shared__ int sx[KM_MAX_K], sy[KM_MAX_K], sz[KM_MAX_K], cnt[KM_MAX_K];
  TX_INIT();
  const int n = blockDim.x, t = threadIdx.x;
  km_load(points, centers, k, cx, cy, cz, sx, sy, sz, cnt);
  __syncthreads();
  const int px = points[t], py = points[n + t], pz = points[2 * n + t];
  const unsigned c = km_closest(cx, cy, cz, k, px, py, pz);
  TX_BEGIN();
  sx[c] += px;
  sy[c] += py;
  sz[c] += pz;
  cnt[c] += 1;
  TX_COMMIT();
  __syncthreads();
  km_store(cx, cy, cz, sx, sy, sz, cnt, k, out);
}

extern "C" __global__ void km_serial(const int* points, const int* centers, int k, int* out) {
  __shared__ int cx[KM_MAX_K], cy[KM_MAX_K], cz[KM_MAX_K];
  __shared__ int sx[KM_MAX_K], sy[KM_MAX_K], sz[KM_MAX_K], cnt[KM_MAX_K];
  const int n = blockDim.x, t = threadIdx.x;
  km_load(points, centers, k, cx, cy, cz, sx, sy, sz, cnt);
  __syncthreads();
  const int px = points[t], py = points[n + t], pz = points[2 * n + t];
  const unsigned c = km_closest(cx, cy, cz, k, px, py, pz);
  for (int turn = 0; turn < n; ++turn) {
    if (turn == t) {
      sx[c] += px;
      sy[c] += py;
      sz[c] += pz;
      cnt[c] += 1;
    }
    __syncthreads();
  }
  km_store(cx, cy, cz, sx, sy, sz, cnt, k, out);
}
