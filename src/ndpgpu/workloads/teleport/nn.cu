// Nearest neighbour (TELEPORT's NNC): Rodinia 2.0's nn kernel, as GPGPU-Sim packages it
// (gpgpu-sim/gpgpu-sim_simulations, benchmarks/src/cuda/rodinia/2.0-ft/nn/nn_cuda.cu). The host copies a
// window of fixed-width hurricane text records (rec_len bytes each) to the device; one thread per record
// copies the five characters of its latitude field, then the five of its longitude field (six bytes
// further on) in two loops, turns each "ddd.d" field (blanks for leading zeros) into a float digit by
// digit, and writes the Euclidean distance to the query point. 16-thread blocks, a 1-D grid over the
// window. Its two arrays are the records and the distances.

extern "C" __global__ void nn_euclid(const char *records, float lat, float lng, float *dist, int n, int rec_len,
                                     int lat_pos) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  float rec_lat = 0.0f, rec_lng = 0.0f;
  int at = (id * rec_len) + lat_pos - 1;
  if (id < n) {
    char f_lat[5];
    for (int k = 0; k < 5; k++) f_lat[k] = records[at + k];
    char f_lng[5];
    for (int k = 0; k < 5; k++) f_lng[k] = records[at + 6 + k];
    // hundreds, tens and units (a blank adds nothing), f[3] is the point, f[4] the tenths
    if (f_lat[0] != ' ') rec_lat += (f_lat[0] - '0') * 100;
    if (f_lat[1] != ' ') rec_lat += (f_lat[1] - '0') * 10;
    if (f_lat[2] != ' ') rec_lat += (f_lat[2] - '0') * 1;
    rec_lat += (float)(f_lat[4] - '0') / 10;
    if (f_lng[0] != ' ') rec_lng += (f_lng[0] - '0') * 100;
    if (f_lng[1] != ' ') rec_lng += (f_lng[1] - '0') * 10;
    if (f_lng[2] != ' ') rec_lng += (f_lng[2] - '0') * 1;
    rec_lng += (float)(f_lng[4] - '0') / 10;
    dist[id] = sqrtf(((rec_lat - lat) * (rec_lat - lat)) + ((rec_lng - lng) * (rec_lng - lng)));
  }
}
