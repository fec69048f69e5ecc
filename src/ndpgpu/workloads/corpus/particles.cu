// An array of C structs updated in place, with a second struct passed by value (its double member
// forces 8-byte alignment and padding in the parameter).
struct Particle {
  float x, y, z;
  int id;
};

struct StepParams {
  float dt;
  int id_offset;
  double scale;
  float vel[3];
};

extern "C" __global__ void particles_step(Particle *p, StepParams prm, float *radius2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle q = p[i];
  q.x = q.x + prm.dt * prm.vel[0];
  q.y = q.y + prm.dt * prm.vel[1];
  q.z = (float)((double)q.z * prm.scale + (double)prm.vel[2]);
  q.id = q.id * 2 + prm.id_offset;
  p[i] = q;
  radius2[i] = (float)((double)q.x * q.x + (double)q.y * q.y);
}
