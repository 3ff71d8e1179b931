// AES-128 (FIPS-197) ECB encryption and decryption with T-box lookups in shared memory, the kernel
// of seed 004 §2 (Fig. 2) and Table 4 (AES_encrypt / AES_decrypt: 257 CTAs of 256 threads).
//
// A CTA of 256 threads handles 64 16-byte blocks; thread t owns column c = t % 4 of block t / 4
// (the four state bytes of a column packed little-endian in one word: byte r = row r). Shared
// memory: the four T-box tables (Te0..Te3, or Td0..Td3 for decryption) and the last round's S-box
// (inverse S-box), 256 words each, copied from global memory at the start; the round keys (44
// words); and two stage buffers of 256 words. Each round (004 Fig. 2):
//   phase I    each thread loads the four columns its output column needs (ShiftRows: column
//              c + r of row r; InvShiftRows: c - r) from the stage buffer — conflict-free: the 8
//              lanes of a cf11 subwarp read the 8 words of their two blocks, 8 banks;
//   phase II   it looks up Te0[b0] ^ Te1[b1] ^ Te2[b2] ^ Te3[b3] — the data-dependent gather:
//              8 lanes index a 256-word table at random, a bank conflict of varying degree;
//   phase III  XOR with the round key (4 distinct words, broadcast within a block);
//   phase IV   stores its column to the other stage buffer, and the CTA synchronizes.
// Of the 10 shared accesses per round 4 gather at random, so the average conflict degree is near
// 1 + 0.4 x (E[max load of 8 balls in 8 bins] - 1) ~ 1.5 (004 Table 4: 1.54). The tables, round
// keys and S-boxes are computed by the host (src/workloads/driver_aes.cpp); decryption uses the
// equivalent inverse cipher (FIPS-197 §5.3.5: InvMixColumns applied to round keys 1..9).
//
// Launch: aes_encrypt/aes_decrypt<<<ceil(blocks / 64), 256>>>(in, out, tables, keys, words):
// tables = T0 | T1 | T2 | T3 | S-box (1,280 words), keys = 44 round-key words, words = 4 x blocks.
// Threads past `words` load and store nothing but take part in the table loads and barriers.

#define AES_THREADS 256

template <unsigned SHIFT>  // 1: encryption (ShiftRows), 3 = -1 mod 4: decryption (InvShiftRows)
__device__ void aes_rounds(const unsigned* in, unsigned* out, const unsigned* tables,
                           const unsigned* keys, int words) {
  __shared__ unsigned t0[256], t1[256], t2[256], t3[256], sbox[256];
  __shared__ unsigned stage[2][AES_THREADS];
  __shared__ unsigned rk[44];
  const unsigned tid = threadIdx.x;
  t0[tid] = tables[tid];
  t1[tid] = tables[256 + tid];
  t2[tid] = tables[512 + tid];
  t3[tid] = tables[768 + tid];
  sbox[tid] = tables[1024 + tid];
  if (tid < 44) rk[tid] = keys[tid];
  const unsigned g = blockIdx.x * AES_THREADS + tid;
  const unsigned c = tid & 3, base = tid & ~3u;
  const unsigned c1 = base + ((c + SHIFT) & 3), c2 = base + ((c + 2 * SHIFT) & 3),
                 c3 = base + ((c + 3 * SHIFT) & 3);
  __syncthreads();
  stage[0][tid] = (g < words ? in[g] : 0u) ^ rk[c];
  __syncthreads();
  for (int r = 1; r < 10; ++r) {
    const unsigned* src = stage[(r - 1) & 1];
    const unsigned a0 = src[tid], a1 = src[c1], a2 = src[c2], a3 = src[c3];  // phase I
    const unsigned v =
        t0[a0 & 0xff] ^ t1[(a1 >> 8) & 0xff] ^ t2[(a2 >> 16) & 0xff] ^ t3[a3 >> 24];  // phase II
    stage[r & 1][tid] = v ^ rk[4 * r + c];  // phases III and IV
    __syncthreads();
  }
  const unsigned* src = stage[1];
  const unsigned a0 = src[tid], a1 = src[c1], a2 = src[c2], a3 = src[c3];
  const unsigned v = sbox[a0 & 0xff] | (sbox[(a1 >> 8) & 0xff] << 8) |
                     (sbox[(a2 >> 16) & 0xff] << 16) | (sbox[a3 >> 24] << 24);
  if (g < words) out[g] = v ^ rk[40 + c];
}

extern "C" __global__ void aes_encrypt(const unsigned* in, unsigned* out, const unsigned* tables,
                                       const unsigned* keys, int words) {
  aes_rounds<1u>(in, out, tables, keys, words);
}

extern "C" __global__ void aes_decrypt(const unsigned* in, unsigned* out, const unsigned* tables,
                                       const unsigned* keys, int words) {
  aes_rounds<3u>(in, out, tables, keys, words);
}
