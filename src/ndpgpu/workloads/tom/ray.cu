// Ray tracer in the style of the GPGPU-Sim suite's RAY: one thread per pixel, the scene (spheres and a
// ground plane) in constant memory, up to max_depth mirror bounces with a shadow ray and Phong/Blinn
// shading at each hit. Each bounce's colour goes to a per-thread stack pile[] (local memory, indexed by
// the run-time bounce count) that is folded back to front at the end; the pixel is packed into RGBA8.
// Compiled with -fmad=false and normalised with sqrtf and division (no rsqrtf), so every float is the
// value a float32 NumPy evaluation in the same order gives.

#define MAX_OBJECTS 64
#define MAX_DEPTH 5
#define NO_HIT 0.0f
#define FAR 10000.0f
#define OFFSET 1e-3f

struct Object {
  float cx, cy, cz, radius;  // sphere centre and radius; a plane y = cy when is_plane
  float red, green, blue;
  int is_plane;
};

__constant__ Object c_scene[MAX_OBJECTS];

struct Vec {
  float x, y, z;
};

__device__ __forceinline__ Vec vec(float x, float y, float z) {
  Vec v;
  v.x = x;
  v.y = y;
  v.z = z;
  return v;
}
__device__ __forceinline__ Vec add(Vec a, Vec b) { return vec(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ __forceinline__ Vec sub(Vec a, Vec b) { return vec(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ __forceinline__ Vec scale(Vec a, float s) { return vec(a.x * s, a.y * s, a.z * s); }
__device__ __forceinline__ float dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __forceinline__ Vec normalize(Vec a) {
  float len = sqrtf(dot(a, a));
  return vec(a.x / len, a.y / len, a.z / len);
}

// Distance along the ray to the object, or NO_HIT.
__device__ float intersect(const Object &o, Vec origin, Vec dir) {
  if (o.is_plane) {
    if (fabsf(dir.y) < 1e-4f) return NO_HIT;
    float t = (o.cy - origin.y) / dir.y;
    return t > 0.0f ? t : NO_HIT;
  }
  Vec oc = sub(origin, vec(o.cx, o.cy, o.cz));
  float b = dot(oc, dir);
  float c = dot(oc, oc) - o.radius * o.radius;
  float disc = b * b - c;
  if (disc <= 0.0f) return NO_HIT;
  float q = sqrtf(disc);
  float t = -b - q;
  if (t > 0.0f) return t;
  t = -b + q;
  return t > 0.0f ? t : NO_HIT;
}

__device__ bool in_shadow(int nobjects, Vec p, Vec to_light, float light_dist) {
  Vec origin = add(p, scale(to_light, OFFSET));
  for (int j = 0; j < nobjects; j++) {
    float t = intersect(c_scene[j], origin, to_light);
    if (t > 0.0f && t < light_dist) return true;
  }
  return false;
}

__device__ __forceinline__ unsigned int pack_rgba(float4 c) {
  unsigned int r = (unsigned int)(__saturatef(c.x) * 255.0f);
  unsigned int g = (unsigned int)(__saturatef(c.y) * 255.0f);
  unsigned int b = (unsigned int)(__saturatef(c.z) * 255.0f);
  unsigned int a = (unsigned int)(__saturatef(c.w) * 255.0f);
  return (a << 24) | (b << 16) | (g << 8) | r;
}

extern "C" __global__ void ray_render(unsigned int *result, int width, int height, int nobjects, int max_depth,
                                      float cam_x, float cam_y, float cam_z, float light_x, float light_y,
                                      float light_z) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float4 pile[MAX_DEPTH];
  for (int i = 0; i < MAX_DEPTH; i++) pile[i] = make_float4(0.0f, 0.0f, 0.0f, 1.0f);
  if (x >= width || y >= height) return;
  const int id = y * width + x;
  result[id] = 0;

  const float pixel = 2.0f / (float)min(width, height);
  Vec origin = vec(cam_x, cam_y, cam_z);
  Vec dir = normalize(vec(((float)x - (float)width * 0.5f) * pixel, ((float)height * 0.5f - (float)y) * pixel, -2.0f));
  const Vec light = vec(light_x, light_y, light_z);

  int n = 0;
  for (int i = 0; i < max_depth && n == i; i++) {
    float nearest = FAR;
    int hit = -1;
    for (int j = 0; j < nobjects; j++) {
      float t = intersect(c_scene[j], origin, dir);
      if (t > 0.0f && t < nearest) {
        nearest = t;
        hit = j;
      }
    }
    if (hit < 0) break;
    n++;
    const Object o = c_scene[hit];
    Vec color = vec(o.red, o.green, o.blue);
    Vec p = add(origin, scale(dir, nearest));
    Vec normal = o.is_plane ? vec(0.0f, 1.0f, 0.0f) : normalize(sub(p, vec(o.cx, o.cy, o.cz)));
    Vec view = vec(-dir.x, -dir.y, -dir.z);
    if (dot(normal, view) < 0.0f) normal = vec(-normal.x, -normal.y, -normal.z);
    Vec to_light = sub(light, p);
    float light_dist = sqrtf(dot(to_light, to_light));
    to_light = vec(to_light.x / light_dist, to_light.y / light_dist, to_light.z / light_dist);

    pile[i] = make_float4(0.05f * color.x, 0.05f * color.y, 0.05f * color.z, 1.0f);
    float lambert = dot(normal, to_light);
    if (lambert > 0.0f && !in_shadow(nobjects, p, to_light, light_dist)) {
      float diffuse = 0.3f * fminf(1.0f, lambert);
      Vec half_vec = normalize(add(to_light, view));
      float s = fmaxf(0.0f, fminf(1.0f, dot(normal, half_vec)));
      float s2 = s * s;
      float s4 = s2 * s2;
      float s8 = s4 * s4;
      float s16 = s8 * s8;
      float s32 = s16 * s16;
      float spec = 0.8f * (s32 * s16 * s2);  // s^50
      pile[i].x += color.x * diffuse + spec;
      pile[i].y += color.y * diffuse + spec;
      pile[i].z += color.z * diffuse + spec;
    }
    // mirror bounce
    float nv = dot(normal, view);
    dir = normalize(sub(scale(normal, 2.0f * nv), view));
    origin = add(p, scale(dir, OFFSET));
  }

  for (int i = n - 1; i > 0; i--) {
    pile[i - 1].x = pile[i - 1].x + 0.8f * pile[i].x;
    pile[i - 1].y = pile[i - 1].y + 0.8f * pile[i].y;
    pile[i - 1].z = pile[i - 1].z + 0.8f * pile[i].z;
    pile[i - 1].w = pile[i - 1].w + 0.8f * pile[i].w;
  }
  result[id] += pack_rgba(pile[0]);
}
