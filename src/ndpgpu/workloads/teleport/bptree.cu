// B+ tree queries (TELEPORT's BPT, after Rodinia's b+tree findK and findRangeK): one thread block of
// BPT_ORDER threads per query walks the tree from the root, thread t testing the key interval
// [keys[t], keys[t+1]) of the current node. Nodes are Rodinia's knode structs (two arrays of BPT_ORDER + 1
// ints); an inner node's keys are its children's smallest keys (keys[0] = INT_MIN, unused slots INT_MAX);
// a leaf's indices are record numbers. The per-query current node lives in global arrays, as in Rodinia.

#define BPT_ORDER 511

struct Knode {
  int location;
  int indices[BPT_ORDER + 1];
  int keys[BPT_ORDER + 1];
  bool is_leaf;
  int num_keys;
};

extern "C" __global__ void bpt_find_k(int height, const Knode *knodes, int knodes_elem, const int *records,
                                      int *curr, int *offset, const int *keys, int *ans) {
  const int thid = threadIdx.x;
  const int bid = blockIdx.x;
  for (int i = 0; i < height; i++) {
    if (knodes[curr[bid]].keys[thid] <= keys[bid] && knodes[curr[bid]].keys[thid + 1] > keys[bid]) {
      if (knodes[curr[bid]].indices[thid] < knodes_elem) offset[bid] = knodes[curr[bid]].indices[thid];
    }
    __syncthreads();
    if (thid == 0) curr[bid] = offset[bid];
    __syncthreads();
  }
  if (knodes[curr[bid]].keys[thid] == keys[bid]) ans[bid] = records[knodes[curr[bid]].indices[thid]];
}

extern "C" __global__ void bpt_find_range_k(int height, const Knode *knodes, int knodes_elem, int *curr, int *offset,
                                            int *last, int *offset_2, const int *start, const int *end,
                                            int *rec_start, int *rec_len) {
  const int thid = threadIdx.x;
  const int bid = blockIdx.x;
  for (int i = 0; i < height; i++) {
    if (knodes[curr[bid]].keys[thid] <= start[bid] && knodes[curr[bid]].keys[thid + 1] > start[bid]) {
      if (knodes[curr[bid]].indices[thid] < knodes_elem) offset[bid] = knodes[curr[bid]].indices[thid];
    }
    if (knodes[last[bid]].keys[thid] <= end[bid] && knodes[last[bid]].keys[thid + 1] > end[bid]) {
      if (knodes[last[bid]].indices[thid] < knodes_elem) offset_2[bid] = knodes[last[bid]].indices[thid];
    }
    __syncthreads();
    if (thid == 0) {
      curr[bid] = offset[bid];
      last[bid] = offset_2[bid];
    }
    __syncthreads();
  }
  if (knodes[curr[bid]].keys[thid] == start[bid]) rec_start[bid] = knodes[curr[bid]].indices[thid];
  __syncthreads();
  if (knodes[last[bid]].keys[thid] == end[bid]) rec_len[bid] = knodes[last[bid]].indices[thid] - rec_start[bid] + 1;
}
