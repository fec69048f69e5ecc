// HotSpot (TELEPORT's HSP, after Rodinia's thermal simulation): one explicit step of the chip temperature
// grid per launch (ping-pong), rows x cols floats; a neighbour outside the grid is replaced by the cell itself.
// hotspot: Baseline/TELEPORT kernel, 16 x 16 blocks, five temperature loads and one power load per cell.
// hotspot_shared: hand-written version in Rodinia's ghost-zone form with a pyramid height of 1: a 16 x 16 block
// stages a 16 x 16 tile of temperature and power in shared memory and updates its inner 14 x 14 cells.

#define HS_BLOCK 16

struct HsCoef {
  float step_div_cap;
  float rx_1;
  float ry_1;
  float rz_1;
  float amb_temp;
};

__device__ __forceinline__ float hs_cell(float t, float p, float tn, float ts, float te, float tw, HsCoef k) {
  return t + k.step_div_cap * (p + (ts + tn - 2.0f * t) * k.ry_1 + (te + tw - 2.0f * t) * k.rx_1 +
                               (k.amb_temp - t) * k.rz_1);
}

extern "C" __global__ void hotspot(const float *power, const float *temp_src, float *temp_dst, int rows, int cols,
                                   HsCoef k) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  int rn = r > 0 ? r - 1 : r;
  int rs = r < rows - 1 ? r + 1 : r;
  int cw = c > 0 ? c - 1 : c;
  int ce = c < cols - 1 ? c + 1 : c;
  temp_dst[r * cols + c] = hs_cell(temp_src[r * cols + c], power[r * cols + c], temp_src[rn * cols + c],
                                   temp_src[rs * cols + c], temp_src[r * cols + ce], temp_src[r * cols + cw], k);
}

extern "C" __global__ void hotspot_shared(const float *power, const float *temp_src, float *temp_dst, int rows,
                                          int cols, HsCoef k) {
  __shared__ float temp_s[HS_BLOCK][HS_BLOCK];
  __shared__ float power_s[HS_BLOCK][HS_BLOCK];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int r = blockIdx.y * (HS_BLOCK - 2) - 1 + ty;  // the tile overlaps its neighbours by one cell a side
  const int c = blockIdx.x * (HS_BLOCK - 2) - 1 + tx;
  const bool inside = r >= 0 && r < rows && c >= 0 && c < cols;
  if (inside) {
    temp_s[ty][tx] = temp_src[r * cols + c];
    power_s[ty][tx] = power[r * cols + c];
  }
  __syncthreads();
  if (!inside || tx == 0 || ty == 0 || tx == HS_BLOCK - 1 || ty == HS_BLOCK - 1) return;
  int n = r > 0 ? ty - 1 : ty;
  int s = r < rows - 1 ? ty + 1 : ty;
  int w = c > 0 ? tx - 1 : tx;
  int e = c < cols - 1 ? tx + 1 : tx;
  temp_dst[r * cols + c] = hs_cell(temp_s[ty][tx], power_s[ty][tx], temp_s[n][tx], temp_s[s][tx], temp_s[ty][e],
                                   temp_s[ty][w], k);
}
