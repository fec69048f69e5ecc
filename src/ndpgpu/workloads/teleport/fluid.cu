// Fluid animation (TELEPORT's FLD, after PARSEC fluidanimate's smoothed-particle hydrodynamics step):
// particles are sorted by cell of a uniform grid whose cell edge is the smoothing length h; every thread
// owns one particle and visits the particles of its 27 neighbouring cells through cell_start/cell_count
// (indirect indexes). Three kernels per frame: densities, forces (pressure + viscosity + gravity), and a
// symplectic Euler advance. Positions and velocities are float3 stored as three arrays each.

struct FluidCoef {
  float h2;              // h^2
  float h;
  float density_coeff;   // particle mass * 315 / (64 pi h^9)
  float self_density;    // h^6 (a particle's own contribution before density_coeff)
  float pressure_coeff;  // 3 * mass * stiffness * 45 / (pi h^6) / 2
  float viscosity_coeff; // viscosity * mass * 45 / (pi h^6)
  float rest_density2;   // 2 * rest density
  float gravity_y;
  float dt;
};

extern "C" __global__ void fluid_density(const float *px, const float *py, const float *pz, const int *cell_of,
                                         const int *cell_start, const int *cell_count, float *density, int n,
                                         int nx, int ny, int nz, FluidCoef k) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int cell = cell_of[p];
  const int cx = cell % nx;
  const int cy = (cell / nx) % ny;
  const int cz = cell / (nx * ny);
  const float x = px[p], y = py[p], z = pz[p];
  float rho = 0.0f;
  for (int dz = -1; dz <= 1; dz++) {
    for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
        int ax = cx + dx, ay = cy + dy, az = cz + dz;
        if (ax < 0 || ay < 0 || az < 0 || ax >= nx || ay >= ny || az >= nz) continue;
        int c = (az * ny + ay) * nx + ax;
        int first = cell_start[c];
        int last = first + cell_count[c];
        for (int q = first; q < last; q++) {
          if (q == p) continue;
          float ex = px[q] - x, ey = py[q] - y, ez = pz[q] - z;
          float d2 = ex * ex + ey * ey + ez * ez;
          if (d2 < k.h2) {
            float t = k.h2 - d2;
            rho += t * t * t;
          }
        }
      }
    }
  }
  density[p] = (rho + k.self_density) * k.density_coeff;
}

extern "C" __global__ void fluid_forces(const float *px, const float *py, const float *pz, const float *vx,
                                        const float *vy, const float *vz, const float *density, const int *cell_of,
                                        const int *cell_start, const int *cell_count, float *ax_out, float *ay_out,
                                        float *az_out, int n, int nx, int ny, int nz, FluidCoef k) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int cell = cell_of[p];
  const int cx = cell % nx;
  const int cy = (cell / nx) % ny;
  const int cz = cell / (nx * ny);
  const float x = px[p], y = py[p], z = pz[p];
  const float rho = density[p];
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  for (int dz = -1; dz <= 1; dz++) {
    for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
        int ax = cx + dx, ay = cy + dy, az = cz + dz;
        if (ax < 0 || ay < 0 || az < 0 || ax >= nx || ay >= ny || az >= nz) continue;
        int c = (az * ny + ay) * nx + ax;
        int first = cell_start[c];
        int last = first + cell_count[c];
        for (int q = first; q < last; q++) {
          if (q == p) continue;
          float ex = x - px[q], ey = y - py[q], ez = z - pz[q];
          float d2 = ex * ex + ey * ey + ez * ez;
          if (d2 < k.h2) {
            float dist = sqrtf(fmaxf(d2, 1e-12f));
            float hmr = k.h - dist;
            float rq = density[q];
            float pr = k.pressure_coeff * (hmr * hmr / dist) * (rho + rq - k.rest_density2);
            float vs = k.viscosity_coeff * hmr;
            float inv = 1.0f / (rho * rq);
            fx += (ex * pr + (vx[q] - vx[p]) * vs) * inv;
            fy += (ey * pr + (vy[q] - vy[p]) * vs) * inv;
            fz += (ez * pr + (vz[q] - vz[p]) * vs) * inv;
          }
        }
      }
    }
  }
  ax_out[p] = fx;
  ay_out[p] = fy + k.gravity_y;
  az_out[p] = fz;
}

extern "C" __global__ void fluid_advance(float *px, float *py, float *pz, float *vx, float *vy, float *vz,
                                         const float *ax, const float *ay, const float *az, int n, FluidCoef k) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  vx[p] += ax[p] * k.dt;
  vy[p] += ay[p] * k.dt;
  vz[p] += az[p] * k.dt;
  px[p] += vx[p] * k.dt;
  py[p] += vy[p] * k.dt;
  pz[p] += vz[p] * k.dt;
}
