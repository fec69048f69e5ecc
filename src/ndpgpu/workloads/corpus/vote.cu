// Warp vote intrinsics: __ballot_sync, __any_sync, __all_sync over full warps, __popc of the ballot,
// each lane's rank among the voting lanes, and a ballot inside a divergent branch (odd lanes only).
extern "C" __global__ void vote(const int *x, int threshold, unsigned int *ballots, int *counts, int *any_out,
                                int *all_out, unsigned int *odd_ballots, int *rank, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // the grid covers whole warps
  int lane = threadIdx.x & 31;
  int w = i >> 5;
  bool pred = (i < n) && (x[i] > threshold);
  unsigned int mask = __ballot_sync(0xffffffffu, pred);
  int any = __any_sync(0xffffffffu, pred);
  int all = __all_sync(0xffffffffu, pred);
  if (i < n) rank[i] = pred ? __popc(mask & ((1u << lane) - 1u)) : -1;
  if (lane & 1) {
    unsigned int odd = __ballot_sync(0xaaaaaaaau, pred);
    if (lane == 1) odd_ballots[w] = odd;
  }
  if (lane == 0) {
    ballots[w] = mask;
    counts[w] = __popc(mask);
    any_out[w] = any;
    all_out[w] = all;
  }
}
