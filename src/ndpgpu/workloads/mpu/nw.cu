// NW (Rodinia needle): Needleman-Wunsch global alignment scores of many independent sequence pairs of
// length LEN, one block of LEN threads per pair (grid-stride over pairs). The block stages the pair's
// substitution scores in shared memory, fills the (LEN + 1) x (LEN + 1) score table in shared memory one
// anti-diagonal per step (thread i owns row i + 1; a barrier between diagonals), and writes the LEN x LEN
// interior back. Global arrays are row-interleaved across pairs: row y of pair q is at (y * npairs + q) * LEN.
//   score[i][j] = max(score[i-1][j-1] + ref[i-1][j-1], score[i-1][j] - penalty, score[i][j-1] - penalty)
//   score[0][j] = -j * penalty, score[i][0] = -i * penalty

#define LEN 32

extern "C" __global__ void mpu_nw(const int *ref, int *score, int npairs, int penalty) {
  __shared__ int s[LEN + 1][LEN + 1];
  __shared__ int r[LEN][LEN + 1];
  const int t = threadIdx.x;

  for (int q = blockIdx.x; q < npairs; q += gridDim.x) {
    for (int y = 0; y < LEN; ++y) r[y][t] = ref[(y * npairs + q) * LEN + t];
    s[0][t + 1] = -(t + 1) * penalty;
    s[t + 1][0] = -(t + 1) * penalty;
    if (t == 0) s[0][0] = 0;
    __syncthreads();

    for (int d = 0; d < 2 * LEN - 1; ++d) {
      const int j = d - t;  // thread t fills cell (t + 1, j + 1) on anti-diagonal d
      if (j >= 0 && j < LEN) {
        int v = s[t][j] + r[t][j];
        v = max(v, s[t][j + 1] - penalty);
        v = max(v, s[t + 1][j] - penalty);
        s[t + 1][j + 1] = v;
      }
      __syncthreads();
    }

    for (int y = 0; y < LEN; ++y) score[(y * npairs + q) * LEN + t] = s[y + 1][t + 1];
    __syncthreads();  // the table is read out before the next pair overwrites it
  }
}
