// Pattern-aware CTA allocation (PACA) helpers of the IP-NDP workloads, written after the paper's
// Guideline 1 and Fig. 6/7: the kernel is launched with gridDim.x = number of SMs and one CTA of 256 threads
// per SM; each CTA owns one region of the image (a band of full-width rows, a band of full-height columns, or
// a tile) and walks it block by block (a block is blockDim.x x blockDim.y pixels), with a __syncthreads()
// after every block step (Guideline 2).
//
// Regions are whole blocks: the band (or tile side) is ceil(extent / (regions * step)) * step pixels, so a
// block never straddles two regions; with the image a multiple of regions * step every region is equal (the
// paper's case), otherwise the last regions are shorter or empty. Loop bounds depend on blockIdx only, so
// every thread of a CTA runs the same number of steps and reaches every barrier; pixels outside the image
// are masked inside the step.
#ifndef IPNDP_CUH
#define IPNDP_CUH

// [lo, hi) of the band of `extent` pixels that region `index` of `regions` owns, in whole `step`s.
__device__ __forceinline__ void ipndp_band(int extent, int step, int regions, int index, int &lo, int &hi) {
  const int per = (extent + regions * step - 1) / (regions * step) * step;
  lo = min(index * per, extent);
  hi = min(lo + per, extent);
}

// Row-major PACA: CTA blockIdx.x owns the rows [y_lo, y_hi) over the full image width.
__device__ __forceinline__ void ipndp_row_band(int height, int &y_lo, int &y_hi) {
  ipndp_band(height, blockDim.y, gridDim.x, blockIdx.x, y_lo, y_hi);
}

// Column-major PACA: CTA blockIdx.x owns the columns [x_lo, x_hi) over the full image height.
__device__ __forceinline__ void ipndp_col_band(int width, int &x_lo, int &x_hi) {
  ipndp_band(width, blockDim.x, gridDim.x, blockIdx.x, x_lo, x_hi);
}

// Tile-based PACA: the image is tiles_x x tiles_y tiles (tiles_x * tiles_y == gridDim.x); CTA blockIdx.x owns
// tile (blockIdx.x % tiles_x, blockIdx.x / tiles_x), i.e. columns [x_lo, x_hi) and rows [y_lo, y_hi).
__device__ __forceinline__ void ipndp_tile(int width, int height, int tiles_x, int tiles_y, int &x_lo, int &x_hi,
                                           int &y_lo, int &y_hi) {
  ipndp_band(width, blockDim.x, tiles_x, blockIdx.x % tiles_x, x_lo, x_hi);
  ipndp_band(height, blockDim.y, tiles_y, blockIdx.x / tiles_x, y_lo, y_hi);
}

#endif  // IPNDP_CUH
