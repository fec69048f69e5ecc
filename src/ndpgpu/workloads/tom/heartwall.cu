// Heart-wall tracking in the shape of Rodinia 3.1's CUDA heartwall (cuda/heartwall/kernel.cu, main.cu,
// define.c): one launch per frame, one block of HW_THREADS threads per sample point (20 endocardium and 31
// epicardium points), every per-point working matrix in its own global allocation, column-major as in the
// MATLAB original, and every step a loop of the block's threads over a matrix's elements with a barrier after it.
//
// Frame 0: each block cuts its point's template (side 2*t_half+1) out of the frame. Frame f > 0, per point:
//   area        the search area (side 2*s_half+1) around the point's anchor, copied out of the frame
//   rotation    the template, turned by 180 degrees, into shared memory
//   convolution full 2-D convolution of the area with the turned template (the correlation of the template
//               with the area at every offset, partial overlaps included), read from shared and global memory
//   window sums twice (pixels, then their squares): zero padding, cumulative sums down each column (one
//               thread per column), two row selections and their difference, cumulative sums along each row
//               (one thread per row), two column selections and their difference: the sum under the template
//               at every offset
//   statistics  the template's sum (column sums), its squares' sum (row sums), the template's deviation
//   correlation normalised cross-correlation at every offset: (conv - sum * mean_t) / (dev_area * dev_t)
//   mask        a one-hot matrix at the previous position, convolved with a max_move x max_move box of ones:
//               only the offsets near the previous position stay
//   maximum     one thread per column finds its largest |value|, one thread the largest column maximum
//   update      every update_every frames the anchor moves to the tracked position and the template is blended
//               with the frame there: alpha * old + (1 - alpha) * new
// Rodinia's second pass of cumulative sums has no barrier between its subtraction and the sums along the rows
// (a race); this kernel has one there.

#define HW_THREADS 256   // Rodinia's NUMBER_THREADS (define.c, the RD_WG_SIZE default)
#define HW_POINTS 51     // Rodinia's ALL_POINTS = ENDO_POINTS 20 + EPI_POINTS 31
#define HW_ENDO 20
#define HW_MAX_TSIDE 51  // the shared arrays hold a template of side 2 * 25 + 1 (Rodinia's tSize 25)
#define HW_MAX_CONV 131  // and the column maxima of a 131 x 131 correlation (51 + 81 - 1)

// Sizes shared by every block (Rodinia's params_common). Matrices are column-major; "rows" is the leading
// dimension. The 1-based bounds are those of the MATLAB-derived selections.
struct hw_sizes {
  int t_half, s_half, max_move, update_every;
  float alpha;
  int video_frames, frame_rows, frame_cols;
  int tpl_side, tpl_elem;           // template
  int area_side, area_elem;         // search area
  int conv_side, conv_elem, conv_off;  // convolution (its output offset: 0, a full convolution)
  int pad_add, pad_side, pad_elem;  // zero-padded area
  int vsel_rows, vsel_elem, vsel_row_lo, vsel_col_lo;  // first row selection of the column sums
  int vsel2_row_lo, vsel2_col_lo;                       // second row selection
  int hsel_rows, hsel_elem, hsel_row_lo, hsel_col_lo;  // first column selection of the row sums
  int hsel2_row_lo, hsel2_col_lo;                       // second column selection
  int win_rows, win_elem;           // window sums (one per convolution offset)
  int mask_side, mask_off;          // the box of ones and its convolution's output offset
};

// The frame of the current launch (Rodinia's params_common_change)
struct hw_frame_info {
  const float *frame;
  int frame_no;
};

// One point's arrays (Rodinia's params_unique): row, col, trow, tcol and tpl are its contour's (endocardium or
// epicardium) arrays, indexed by the point's number on that contour
struct hw_point {
  int *row, *col, *trow, *tcol;
  float *tpl;
  int index;       // number on its contour
  int tpl_offset;  // index * tpl_elem
  float *area, *conv, *pad, *vsel, *hsum, *hsel, *win, *area_sqr, *win_sqr, *tpl_sqr, *tmask, *masked;
};

__constant__ hw_sizes c_hw;
__constant__ hw_frame_info c_frame;
__constant__ hw_point c_pts[HW_POINTS];

// 0-based (row, col) of column-major element k of a matrix with `rows` rows, worked out from the 1-based index
// as the MATLAB-derived source does
__device__ __forceinline__ void hw_row_col(int k, int rows, int &row, int &col) {
  row = (k + 1) % rows - 1;
  col = (k + 1) / rows;
  if ((k + 1) % rows == 0) {
    row = rows - 1;
    col = col - 1;
  }
}

// dst (dst_elem elements, dst_rows rows) <- the block of src (src_rows rows) whose top-left element is the
// 1-based (row_lo, col_lo)
__device__ __forceinline__ void hw_select(float *dst, int dst_rows, int dst_elem, const float *src, int src_rows,
                                          int row_lo, int col_lo) {
  for (int k = threadIdx.x; k < dst_elem; k += HW_THREADS) {
    int row, col;
    hw_row_col(k, dst_rows, row, col);
    dst[k] = src[(col + col_lo - 1) * src_rows + row + row_lo - 1];
  }
}

// dst <- a - dst, elementwise over n elements
__device__ __forceinline__ void hw_subtract_from(float *dst, const float *a, int n) {
  for (int k = threadIdx.x; k < n; k += HW_THREADS) dst[k] = a[k] - dst[k];
}

// The sum of `src` (the area or its squares) under the template at every convolution offset, into `win`
__device__ __forceinline__ void hw_window_sums(const float *src, const hw_point &pt, float *win) {
  const int side = c_hw.pad_side, add = c_hw.pad_add, n = c_hw.area_side;
  // zero padding of template-side width on every edge
  for (int k = threadIdx.x; k < c_hw.pad_elem; k += HW_THREADS) {
    int row, col;
    hw_row_col(k, side, row, col);
    if (row > add - 1 && row < add + n && col > add - 1 && col < add + n)
      pt.pad[k] = src[(col - add) * n + row - add];
    else
      pt.pad[k] = 0;
  }
  __syncthreads();
  // cumulative sums down every column, one thread per column
  for (int col = threadIdx.x; col < side; col += HW_THREADS) {
    const int first = col * side;
    float running = 0;
    for (int at = first; at < first + side; at++) {
      float v = pt.pad[at] + running;
      pt.pad[at] = v;
      running = v;
    }
  }
  __syncthreads();
  hw_select(pt.vsel, c_hw.vsel_rows, c_hw.vsel_elem, pt.pad, side, c_hw.vsel_row_lo, c_hw.vsel_col_lo);
  __syncthreads();
  hw_select(pt.hsum, c_hw.vsel_rows, c_hw.vsel_elem, pt.pad, side, c_hw.vsel2_row_lo, c_hw.vsel2_col_lo);
  __syncthreads();
  hw_subtract_from(pt.hsum, pt.vsel, c_hw.vsel_elem);
  __syncthreads();  // Rodinia has this barrier in the first pass only (see the header)
  // cumulative sums along every row, one thread per row
  for (int row = threadIdx.x; row < c_hw.vsel_rows; row += HW_THREADS) {
    float running = 0;
    for (int at = row; at < row + c_hw.vsel_elem; at += c_hw.vsel_rows) {
      float v = pt.hsum[at] + running;
      pt.hsum[at] = v;
      running = v;
    }
  }
  __syncthreads();
  hw_select(pt.hsel, c_hw.hsel_rows, c_hw.hsel_elem, pt.hsum, c_hw.vsel_rows, c_hw.hsel_row_lo, c_hw.hsel_col_lo);
  __syncthreads();
  hw_select(win, c_hw.win_rows, c_hw.win_elem, pt.hsum, c_hw.vsel_rows, c_hw.hsel2_row_lo, c_hw.hsel2_col_lo);
  __syncthreads();
  hw_subtract_from(win, pt.hsel, c_hw.win_elem);
  __syncthreads();
}

extern "C" __global__ void heartwall_kernel() {
  __shared__ float s_turned[HW_MAX_TSIDE * HW_MAX_TSIDE];
  __shared__ float s_col_sum[HW_MAX_TSIDE];
  __shared__ float s_row_sum_sqr[HW_MAX_TSIDE];
  __shared__ float s_sum, s_sum_sqr, s_dev_t;
  __shared__ float s_col_max[HW_MAX_CONV];
  __shared__ int s_col_max_at[HW_MAX_CONV];

  const int tx = threadIdx.x;
  const hw_point &pt = c_pts[blockIdx.x];
  float *tpl = pt.tpl + pt.tpl_offset;
  const float *frame = c_frame.frame;
  const int frame_no = c_frame.frame_no;
  const int tside = c_hw.tpl_side;
  int row, col;

  if (frame_no == 0) {  // the templates come from the first frame
    if (tx == 0) {
      const int at = pt.index * c_hw.video_frames + frame_no;
      pt.trow[at] = pt.row[pt.index];
      pt.tcol[at] = pt.col[pt.index];
    }
    for (int k = tx; k < c_hw.tpl_elem; k += HW_THREADS) {
      hw_row_col(k, tside, row, col);
      const int fr = pt.row[pt.index] - c_hw.t_half + row - 1;
      const int fc = pt.col[pt.index] - c_hw.t_half + col - 1;
      tpl[col * tside + row] = frame[fc * c_hw.frame_rows + fr];
    }
  }

  if (frame_no != 0) {
    // search area around the anchor
    const int area_r0 = pt.row[pt.index] - c_hw.s_half;  // 1-based
    const int area_c0 = pt.col[pt.index] - c_hw.s_half;
    const int aside = c_hw.area_side;
    for (int k = tx; k < c_hw.area_elem; k += HW_THREADS) {
      hw_row_col(k, aside, row, col);
      pt.area[k] = frame[(col + area_c0 - 1) * c_hw.frame_rows + row + area_r0 - 1];
    }
    __syncthreads();

    // the template turned by 180 degrees
    for (int k = tx; k < c_hw.tpl_elem; k += HW_THREADS) {
      hw_row_col(k, tside, row, col);
      s_turned[k] = tpl[(tside - 1 - col) * tside + (tside - 1 - row)];
    }
    __syncthreads();

    // full convolution of the area with the turned template (1-based indices as in the MATLAB original)
    for (int k = tx; k < c_hw.conv_elem; k += HW_THREADS) {
      hw_row_col(k, c_hw.conv_side, row, col);
      const int i = row + 1 + c_hw.conv_off, j = col + 1 + c_hw.conv_off;
      const int ja_lo = aside < j + 1 ? j + 1 - aside : 1;
      const int ja_hi = tside < j ? tside : j;
      const int ia_lo = aside < i + 1 ? i + 1 - aside : 1;
      const int ia_hi = tside < i ? tside : i;
      float acc = 0;
      for (int ja = ja_lo; ja <= ja_hi; ja++) {
        const int jb = j + 1 - ja;
        for (int ia = ia_lo; ia <= ia_hi; ia++) {
          const int ib = i + 1 - ia;
          acc = acc + s_turned[tside * (ja - 1) + ia - 1] * pt.area[aside * (jb - 1) + ib - 1];
        }
      }
      pt.conv[k] = acc;
    }
    __syncthreads();

    // sums under the template: of the pixels, then of their squares
    hw_window_sums(pt.area, pt, pt.win);
    for (int k = tx; k < c_hw.area_elem; k += HW_THREADS) {
      const float v = pt.area[k];
      pt.area_sqr[k] = v * v;
    }
    __syncthreads();
    hw_window_sums(pt.area_sqr, pt, pt.win_sqr);

    // the area's deviation under the template (times its element count's root), into win_sqr
    const int n = c_hw.tpl_elem;
    for (int k = tx; k < c_hw.win_elem; k += HW_THREADS) {
      const float sum = pt.win[k];
      float spread = pt.win_sqr[k] - (sum * sum / n);
      if (spread < 0) spread = 0;
      pt.win_sqr[k] = sqrtf(spread);
    }
    __syncthreads();

    // the template's statistics
    for (int k = tx; k < n; k += HW_THREADS) {
      const float v = tpl[k];
      pt.tpl_sqr[k] = v * v;
    }
    __syncthreads();
    for (int c = tx; c < tside; c += HW_THREADS) {  // column sums of the template
      float sum = 0;
      for (int r = 0; r < tside; r++) sum = sum + tpl[c * tside + r];
      s_col_sum[c] = sum;
    }
    __syncthreads();
    for (int r = tx; r < tside; r += HW_THREADS) {  // row sums of its squares
      float sum = 0;
      for (int c = 0; c < tside; c++) sum = sum + pt.tpl_sqr[r + tside * c];
      s_row_sum_sqr[r] = sum;
    }
    __syncthreads();
    if (tx == 0) {
      float sum = 0;
      for (int c = 0; c < tside; c++) sum = sum + s_col_sum[c];
      s_sum = sum;
    } else if (tx == 1) {
      float sum = 0;
      for (int r = 0; r < tside; r++) sum = sum + s_row_sum_sqr[r];
      s_sum_sqr = sum;
    }
    __syncthreads();
    if (tx == 0) {
      const float mean = s_sum / n;
      const float mean_sqr = mean * mean;
      const float var = (s_sum_sqr / n) - mean_sqr;
      s_dev_t = sqrtf((float)(n - 1)) * sqrtf(var);
    }
    __syncthreads();

    // normalised cross-correlation at every offset, into win_sqr
    for (int k = tx; k < c_hw.win_elem; k += HW_THREADS) pt.win_sqr[k] = pt.win_sqr[k] * s_dev_t;
    __syncthreads();
    for (int k = tx; k < c_hw.conv_elem; k += HW_THREADS) pt.conv[k] = pt.conv[k] - pt.win[k] * s_sum / n;
    __syncthreads();
    for (int k = tx; k < c_hw.win_elem; k += HW_THREADS) pt.win_sqr[k] = pt.conv[k] / pt.win_sqr[k];
    __syncthreads();

    // one-hot mask at the previous position, relative to the anchor
    const int centre = c_hw.s_half + c_hw.t_half + 1;
    const int prev = frame_no - 1 + pt.index * c_hw.video_frames;
    const int mask_row = centre + pt.trow[prev] - pt.row[pt.index] - 1;
    const int mask_col = centre + pt.tcol[prev] - pt.col[pt.index] - 1;
    const int mside = c_hw.conv_side;  // the mask matrix is as large as the correlation
    for (int k = tx; k < c_hw.conv_elem; k += HW_THREADS) {
      const int at = mask_col * mside + mask_row;
      pt.tmask[k] = k == at ? 1 : 0;
    }
    __syncthreads();

    // the mask convolved with a max_move x max_move box of ones, times the correlation
    const int box = c_hw.mask_side;
    for (int k = tx; k < c_hw.conv_elem; k += HW_THREADS) {
      hw_row_col(k, mside, row, col);
      const int i = row + 1 + c_hw.mask_off, j = col + 1 + c_hw.mask_off;
      const int ja_lo = box < j + 1 ? j + 1 - box : 1;
      const int ja_hi = mside < j ? mside : j;
      const int ia_lo = box < i + 1 ? i + 1 - box : 1;
      const int ia_hi = mside < i ? mside : i;
      float hits = 0;
      for (int ja = ja_lo; ja <= ja_hi; ja++)
        for (int ia = ia_lo; ia <= ia_hi; ia++) hits = hits + pt.tmask[mside * (ja - 1) + ia - 1];
      pt.masked[k] = pt.win_sqr[k] * hits;
    }
    __syncthreads();

    // the largest |value|: per column, then over the columns
    float best = 0;
    int best_at = 0;
    for (int c = tx; c < mside; c += HW_THREADS) {
      for (int r = 0; r < mside; r++) {
        const int at = c * mside + r;
        const float v = fabsf(pt.masked[at]);
        if (v > best) {
          best = v;
          best_at = at;
        }
      }
      s_col_max[c] = best;
      s_col_max_at[c] = best_at;
    }
    __syncthreads();
    if (tx == 0) {
      float top = 0;
      int top_at = 0;
      for (int c = 0; c < mside; c++) {
        if (s_col_max[c] > top) {
          top = s_col_max[c];
          top_at = s_col_max_at[c];
        }
      }
      hw_row_col(top_at, mside, row, col);
      // 1-based position in the correlation, less the template side and the area's margin beyond it
      const int move_row = row + 1 - tside - (c_hw.s_half - c_hw.t_half);
      const int move_col = col + 1 - tside - (c_hw.s_half - c_hw.t_half);
      const int at = frame_no + pt.index * c_hw.video_frames;
      pt.trow[at] = pt.row[pt.index] + move_row;
      pt.tcol[at] = pt.col[pt.index] + move_col;
    }
    __syncthreads();
  }

  // every update_every frames: the anchor moves to the tracked position and the template is blended there
  if (frame_no != 0 && frame_no % c_hw.update_every == 0) {
    const int at = pt.index * c_hw.video_frames + frame_no;
    pt.row[pt.index] = pt.trow[at];
    pt.col[pt.index] = pt.tcol[at];
    for (int k = tx; k < c_hw.tpl_elem; k += HW_THREADS) {
      hw_row_col(k, tside, row, col);
      const int fr = pt.row[pt.index] - c_hw.t_half + row - 1;
      const int fc = pt.col[pt.index] - c_hw.t_half + col - 1;
      tpl[k] = c_hw.alpha * tpl[k] + (1.0 - c_hw.alpha) * frame[fc * c_hw.frame_rows + fr];
    }
  }
}
