// Voting step of the Hough transform for lines (seed 000 §V.C).
//
// Edge pixels (after edge detection and thresholding) are given as a list of coordinates. Every
// pixel votes in the polar vote space with rho = x cos(theta) + y sin(theta). Block b handles angle
// theta_b = b * pi / gridDim.x: its vote space row (num_rho bins) is replicated R times in dynamic
// shared memory without padding, cyclic mapping (copy = tid % R), as for the histogram in seed 000
// §V.C; with stretch = 1 the copies are bin-stretched instead (bin b of copy c at b * R + c). rho
// is shifted by rho_offset (half the image diagonal) and rounded to the nearest bin.
//
// Launch: hough_vote<<<num_theta, threads, R * num_rho * 4>>>(xs, ys, n, num_rho, rho_offset, R,
// stretch, accumulator); accumulator is num_theta x num_rho words, fully written by the kernel.

extern "C" __global__ void hough_vote(const int* xs, const int* ys, int n, int num_rho,
                                      float rho_offset, int replication, int stretch,
                                      unsigned int* accumulator) {
  extern __shared__ unsigned int vote_space[];
  const int tid = threadIdx.x;
  for (int w = tid; w < replication * num_rho; w += blockDim.x) vote_space[w] = 0;
  __syncthreads();

  const float theta = blockIdx.x * (3.14159265358979f / gridDim.x);
  const float c = __cosf(theta);
  const float s = __sinf(theta);
  const int copy = tid % replication;
  for (int i = tid; i < n; i += blockDim.x) {
    const float rho = xs[i] * c + ys[i] * s + rho_offset;
    const int bin = __float2int_rn(rho);
    if (bin >= 0 && bin < num_rho)
      atomicAdd(&vote_space[stretch ? bin * replication + copy : copy * num_rho + bin], 1u);
  }
  __syncthreads();

  for (int b = tid; b < num_rho; b += blockDim.x) {
    unsigned int sum = 0;
    for (int r = 0; r < replication; ++r)
      sum += vote_space[stretch ? b * replication + r : r * num_rho + b];
    accumulator[blockIdx.x * num_rho + b] = sum;
  }
}
