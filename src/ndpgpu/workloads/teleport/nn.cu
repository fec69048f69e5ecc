// Nearest neighbour (TELEPORT's NNC, after Rodinia's nn): the distance of every hurricane record's position to
// a query point. Records are fixed-width text lines of NN_REC_LENGTH bytes, as in Rodinia's data files; each
// thread parses its record's latitude and longitude fields (five characters each, "ddd.d" with leading
// blanks) in per-character loops, then writes the Euclidean distance. The host picks the k nearest.
// 16-thread blocks in a 2D grid, as Rodinia's nn.

#define NN_REC_LENGTH 49
#define NN_LAT_OFFSET 28
#define NN_LNG_OFFSET 33
#define NN_FIELD 5

__device__ __forceinline__ float nn_field(const char *rec, int offset) {
  int value = 0;
  for (int i = 0; i < NN_FIELD; i++) {
    char ch = rec[offset + i];
    if (ch >= '0' && ch <= '9') value = value * 10 + (ch - '0');
  }
  return (float)value / 10.0f;
}

extern "C" __global__ void nn_euclid(const char *records, float *distances, int num_records, float lat, float lng) {
  int gid = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (gid < num_records) {
    const char *rec = records + gid * NN_REC_LENGTH;
    float dlat = lat - nn_field(rec, NN_LAT_OFFSET);
    float dlng = lng - nn_field(rec, NN_LNG_OFFSET);
    distances[gid] = sqrtf(dlat * dlat + dlng * dlng);
  }
}
