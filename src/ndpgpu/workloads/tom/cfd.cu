// Unstructured-grid finite-volume Euler solver (Rodinia cfd / euler3d style).
// Five conserved variables per element, stored variable-major: v[i + var * nelr]. Every element has
// NNB = 4 faces: a neighbour index, or -1 (wall: pressure only) or -2 (far field: free-stream state).
// One time step = compute_step_factor, then RK = 3 stages of compute_flux + time_step.

#define GAMMA 1.4f
#define NDIM 3
#define NNB 4
#define RK 3
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY (VAR_MOMENTUM + NDIM)
#define NVAR (VAR_DENSITY_ENERGY + 1)

__constant__ float ff_variable[NVAR];
// free-stream flux contributions: momentum x, y, z rows, then density-energy
__constant__ float3 ff_flux_contribution[4];

__device__ __forceinline__ float3 velocity_of(float density, float3 momentum) {
  return make_float3(momentum.x / density, momentum.y / density, momentum.z / density);
}

__device__ __forceinline__ float speed_sqd_of(float3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }

__device__ __forceinline__ float pressure_of(float density, float density_energy, float speed_sqd) {
  return (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}

__device__ __forceinline__ float speed_of_sound_of(float density, float pressure) {
  return sqrtf(GAMMA * pressure / density);
}

__device__ __forceinline__ void flux_contribution(float3 momentum, float density_energy, float pressure,
                                                  float3 velocity, float3 &fc_mx, float3 &fc_my,
                                                  float3 &fc_mz, float3 &fc_de) {
  fc_mx.x = velocity.x * momentum.x + pressure;
  fc_mx.y = velocity.x * momentum.y;
  fc_mx.z = velocity.x * momentum.z;
  fc_my.x = fc_mx.y;
  fc_my.y = velocity.y * momentum.y + pressure;
  fc_my.z = velocity.y * momentum.z;
  fc_mz.x = fc_mx.z;
  fc_mz.y = fc_my.z;
  fc_mz.z = velocity.z * momentum.z + pressure;
  float de_p = density_energy + pressure;
  fc_de.x = velocity.x * de_p;
  fc_de.y = velocity.y * de_p;
  fc_de.z = velocity.z * de_p;
}

extern "C" __global__ void cfd_initialize_variables(int nelr, float *variables) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= nelr) return;
  for (int j = 0; j < NVAR; j++) variables[i + j * nelr] = ff_variable[j];
}

extern "C" __global__ void cfd_compute_step_factor(int nelr, const float *variables, const float *areas,
                                                   float *step_factors) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= nelr) return;
  float density = variables[i + VAR_DENSITY * nelr];
  float3 momentum;
  momentum.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
  momentum.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
  momentum.z = variables[i + (VAR_MOMENTUM + 2) * nelr];
  float density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
  float3 velocity = velocity_of(density, momentum);
  float speed_sqd = speed_sqd_of(velocity);
  float pressure = pressure_of(density, density_energy, speed_sqd);
  float speed_of_sound = speed_of_sound_of(density, pressure);
  step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + speed_of_sound));
}

extern "C" __global__ void cfd_compute_flux(int nelr, const int *elements_surrounding_elements,
                                            const float *normals, const float *variables, float *fluxes) {
  const float smoothing_coefficient = 0.2f;
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= nelr) return;

  float density_i = variables[i + VAR_DENSITY * nelr];
  float3 momentum_i;
  momentum_i.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
  momentum_i.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
  momentum_i.z = variables[i + (VAR_MOMENTUM + 2) * nelr];
  float density_energy_i = variables[i + VAR_DENSITY_ENERGY * nelr];
  float3 velocity_i = velocity_of(density_i, momentum_i);
  float speed_sqd_i = speed_sqd_of(velocity_i);
  float speed_i = sqrtf(speed_sqd_i);
  float pressure_i = pressure_of(density_i, density_energy_i, speed_sqd_i);
  float speed_of_sound_i = speed_of_sound_of(density_i, pressure_i);
  float3 fc_i_mx, fc_i_my, fc_i_mz, fc_i_de;
  flux_contribution(momentum_i, density_energy_i, pressure_i, velocity_i, fc_i_mx, fc_i_my, fc_i_mz, fc_i_de);

  float flux_i_density = 0.0f;
  float3 flux_i_momentum = make_float3(0.0f, 0.0f, 0.0f);
  float flux_i_density_energy = 0.0f;

#pragma unroll
  for (int j = 0; j < NNB; j++) {
    int nb = elements_surrounding_elements[i + j * nelr];
    float3 normal;
    normal.x = normals[i + (j + 0 * NNB) * nelr];
    normal.y = normals[i + (j + 1 * NNB) * nelr];
    normal.z = normals[i + (j + 2 * NNB) * nelr];
    float normal_len = sqrtf(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);

    if (nb >= 0) {
      float density_nb = variables[nb + VAR_DENSITY * nelr];
      float3 momentum_nb;
      momentum_nb.x = variables[nb + (VAR_MOMENTUM + 0) * nelr];
      momentum_nb.y = variables[nb + (VAR_MOMENTUM + 1) * nelr];
      momentum_nb.z = variables[nb + (VAR_MOMENTUM + 2) * nelr];
      float density_energy_nb = variables[nb + VAR_DENSITY_ENERGY * nelr];
      float3 velocity_nb = velocity_of(density_nb, momentum_nb);
      float speed_sqd_nb = speed_sqd_of(velocity_nb);
      float pressure_nb = pressure_of(density_nb, density_energy_nb, speed_sqd_nb);
      float speed_of_sound_nb = speed_of_sound_of(density_nb, pressure_nb);
      float3 fc_nb_mx, fc_nb_my, fc_nb_mz, fc_nb_de;
      flux_contribution(momentum_nb, density_energy_nb, pressure_nb, velocity_nb, fc_nb_mx, fc_nb_my, fc_nb_mz,
                        fc_nb_de);

      // artificial viscosity
      float factor = -normal_len * smoothing_coefficient * 0.5f *
                     (speed_i + sqrtf(speed_sqd_nb) + speed_of_sound_i + speed_of_sound_nb);
      flux_i_density += factor * (density_i - density_nb);
      flux_i_density_energy += factor * (density_energy_i - density_energy_nb);
      flux_i_momentum.x += factor * (momentum_i.x - momentum_nb.x);
      flux_i_momentum.y += factor * (momentum_i.y - momentum_nb.y);
      flux_i_momentum.z += factor * (momentum_i.z - momentum_nb.z);

      // cell-centred fluxes
      factor = 0.5f * normal.x;
      flux_i_density += factor * (momentum_nb.x + momentum_i.x);
      flux_i_density_energy += factor * (fc_nb_de.x + fc_i_de.x);
      flux_i_momentum.x += factor * (fc_nb_mx.x + fc_i_mx.x);
      flux_i_momentum.y += factor * (fc_nb_my.x + fc_i_my.x);
      flux_i_momentum.z += factor * (fc_nb_mz.x + fc_i_mz.x);

      factor = 0.5f * normal.y;
      flux_i_density += factor * (momentum_nb.y + momentum_i.y);
      flux_i_density_energy += factor * (fc_nb_de.y + fc_i_de.y);
      flux_i_momentum.x += factor * (fc_nb_mx.y + fc_i_mx.y);
      flux_i_momentum.y += factor * (fc_nb_my.y + fc_i_my.y);
      flux_i_momentum.z += factor * (fc_nb_mz.y + fc_i_mz.y);

      factor = 0.5f * normal.z;
      flux_i_density += factor * (momentum_nb.z + momentum_i.z);
      flux_i_density_energy += factor * (fc_nb_de.z + fc_i_de.z);
      flux_i_momentum.x += factor * (fc_nb_mx.z + fc_i_mx.z);
      flux_i_momentum.y += factor * (fc_nb_my.z + fc_i_my.z);
      flux_i_momentum.z += factor * (fc_nb_mz.z + fc_i_mz.z);
    } else if (nb == -1) {
      // wall: only the pressure acts
      flux_i_momentum.x += normal.x * pressure_i;
      flux_i_momentum.y += normal.y * pressure_i;
      flux_i_momentum.z += normal.z * pressure_i;
    } else if (nb == -2) {
      // far field: the neighbour is the free stream
      float factor = 0.5f * normal.x;
      flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 0] + momentum_i.x);
      flux_i_density_energy += factor * (ff_flux_contribution[3].x + fc_i_de.x);
      flux_i_momentum.x += factor * (ff_flux_contribution[0].x + fc_i_mx.x);
      flux_i_momentum.y += factor * (ff_flux_contribution[1].x + fc_i_my.x);
      flux_i_momentum.z += factor * (ff_flux_contribution[2].x + fc_i_mz.x);

      factor = 0.5f * normal.y;
      flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 1] + momentum_i.y);
      flux_i_density_energy += factor * (ff_flux_contribution[3].y + fc_i_de.y);
      flux_i_momentum.x += factor * (ff_flux_contribution[0].y + fc_i_mx.y);
      flux_i_momentum.y += factor * (ff_flux_contribution[1].y + fc_i_my.y);
      flux_i_momentum.z += factor * (ff_flux_contribution[2].y + fc_i_mz.y);

      factor = 0.5f * normal.z;
      flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 2] + momentum_i.z);
      flux_i_density_energy += factor * (ff_flux_contribution[3].z + fc_i_de.z);
      flux_i_momentum.x += factor * (ff_flux_contribution[0].z + fc_i_mx.z);
      flux_i_momentum.y += factor * (ff_flux_contribution[1].z + fc_i_my.z);
      flux_i_momentum.z += factor * (ff_flux_contribution[2].z + fc_i_mz.z);
    }
  }

  fluxes[i + VAR_DENSITY * nelr] = flux_i_density;
  fluxes[i + (VAR_MOMENTUM + 0) * nelr] = flux_i_momentum.x;
  fluxes[i + (VAR_MOMENTUM + 1) * nelr] = flux_i_momentum.y;
  fluxes[i + (VAR_MOMENTUM + 2) * nelr] = flux_i_momentum.z;
  fluxes[i + VAR_DENSITY_ENERGY * nelr] = flux_i_density_energy;
}

extern "C" __global__ void cfd_time_step(int j, int nelr, const float *old_variables, float *variables,
                                         const float *step_factors, const float *fluxes) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= nelr) return;
  float factor = step_factors[i] / float(RK + 1 - j);
  variables[i + VAR_DENSITY * nelr] = old_variables[i + VAR_DENSITY * nelr] + factor * fluxes[i + VAR_DENSITY * nelr];
  variables[i + VAR_DENSITY_ENERGY * nelr] =
      old_variables[i + VAR_DENSITY_ENERGY * nelr] + factor * fluxes[i + VAR_DENSITY_ENERGY * nelr];
  variables[i + (VAR_MOMENTUM + 0) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 0) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 0) * nelr];
  variables[i + (VAR_MOMENTUM + 1) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 1) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 1) * nelr];
  variables[i + (VAR_MOMENTUM + 2) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 2) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 2) * nelr];
}
