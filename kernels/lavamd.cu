// Particle interactions within neighbouring boxes: seed 002 Table 5's lavaMD (Rodinia), written for
// smemsim from the algorithm. Space is split into boxes1d^3 boxes of P particles; every particle i
// of a home box interacts with every particle j of the home box and of each neighbouring box
// (offsets -1..1 in each dimension, inside the domain):
//     r2 = rA.v + rB.v - (rA.x rB.x + rA.y rB.y + rA.z rB.z),  u2 = a2 r2,  vij = exp(-u2),
//     fs = 2 vij,  d = rA - rB,  fA += qB (vij, fs d.x, fs d.y, fs d.z)
// in double precision (Rodinia's fp; our inputs set v = (x^2 + y^2 + z^2) / 2, so r2 is half the
// squared distance), except exp, taken in single precision (__expf): nvcc's double exp() unpacks a
// double with `mov.b64 {lo, hi}`, which smemsim's executor does not run yet. The shared-memory
// traffic, all doubles, is Rodinia's. A block of 128 threads owns one home box: it stages the home
// box's positions in rA[P] and, per neighbour, the neighbour's positions and charges in rB[P],
// qB[P] (structures of four doubles, 32 bytes); thread t < P accumulates particle t's force.
//
// Bank conflicts (32 banks of 4 bytes): nvcc moves a structure as four doubles; a double per lane
// is a 64-bit access, served by half-warps (docs/exec.md, wide accesses). The 16 lanes of a half
// are 32 bytes (8 words) apart, so lanes l, l + 4, l + 8, l + 12 share their two banks: 4-way on
// the staging stores and the rA[t] reads. rB[j] and qB[j] in the inner loop are the same words
// for every lane (broadcasts).
//
// Launch: lavamd<<<boxes1d^3, 128>>>(rv, qv, fv, boxes1d, a2): rv and fv hold P = 100 structures
// (v, x, y, z) per box, qv P doubles per box; boxes in x-fastest order.

#define LAVA_P 100

struct LavaV4 {
  double v, x, y, z;
};

extern "C" __global__ void lavamd(const LavaV4* rv, const double* qv, LavaV4* fv, int boxes1d,
                                  double a2) {
  __shared__ LavaV4 rA[LAVA_P], rB[LAVA_P];
  __shared__ double qB[LAVA_P];
  const int t = threadIdx.x, home = blockIdx.x;
  const int hx = home % boxes1d, hy = (home / boxes1d) % boxes1d, hz = home / (boxes1d * boxes1d);
  if (t < LAVA_P) rA[t] = rv[home * LAVA_P + t];
  LavaV4 f = {0.0, 0.0, 0.0, 0.0};
  for (int nz = hz - 1; nz <= hz + 1; ++nz)
    for (int ny = hy - 1; ny <= hy + 1; ++ny)
      for (int nx = hx - 1; nx <= hx + 1; ++nx) {
        if (nx < 0 || ny < 0 || nz < 0 || nx >= boxes1d || ny >= boxes1d || nz >= boxes1d) continue;
        const int nb = (nz * boxes1d + ny) * boxes1d + nx;
        __syncthreads();  // the previous neighbour's rB and qB are no longer read
        if (t < LAVA_P) {
          rB[t] = rv[nb * LAVA_P + t];
          qB[t] = qv[nb * LAVA_P + t];
        }
        __syncthreads();
        if (t < LAVA_P) {
          const LavaV4 a = rA[t];
          for (int j = 0; j < LAVA_P; ++j) {
            const LavaV4 b = rB[j];
            const double r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
            const double vij = double(__expf(float(-a2 * r2)));
            const double fs = 2.0 * vij;
            const double q = qB[j];
            f.v += q * vij;
            f.x += q * (fs * (a.x - b.x));
            f.y += q * (fs * (a.y - b.y));
            f.z += q * (fs * (a.z - b.z));
          }
        }
      }
  if (t < LAVA_P) fv[home * LAVA_P + t] = f;
}
