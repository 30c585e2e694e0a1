#version 330 core
// Translucent body fills with their outlines, with noise-texture coordinates. A body's vertices
// are local (centroid-relative) and placed here from the body's pose; overlays are world-space.
// Each corner is moved `shift` pixels along its miter (demo/draw/mesh.py): polygons half a pixel
// in, their fringes straddling the outline, for antialiased edges at any zoom.
layout(location = 0) in vec2 position;   // world units: local to the body, or world if body = 0
layout(location = 1) in vec2 texcoord;   // local vertex * 0.06, as the original
layout(location = 2) in vec4 color;      // fill, straight (not premultiplied) RGBA
layout(location = 3) in float outline;   // sides drawn (bit i: the side opposite corner i)
                                         // + 8 * outline colour index (0: no outline)
                                         // + 32 for a fringe triangle
layout(location = 4) in float body;      // body index + 1; 0: not a body
layout(location = 5) in vec2 miter;      // moves both of the corner's sides 1 unit out
layout(location = 6) in float shift;     // pixels to move along the miter
uniform mat4 transform;                  // world -> clip
uniform vec4 outline_colors[3];          // none, moving, static
uniform sampler2D poses;                 // per body: x, y, cos(angle), sin(angle)
uniform int pose_width;                  // bodies per row of `poses`
uniform float px_world;                  // world units per framebuffer pixel
invariant gl_Position;               // the backdrop program covers the same pixels (demo/draw/render.py)
out vec2 v_texcoord;
flat out vec4 v_color;
flat out vec4 v_outline;
flat out int v_fringe;
out vec3 v_edge;
out float v_cover;
void main() {
    vec2 local = position + miter * (shift * px_world);
    vec2 world = local;
    int b = int(body + 0.5) - 1;
    if (b >= 0) {
        vec4 pose = texelFetch(poses, ivec2(b % pose_width, b / pose_width), 0);
        world = pose.xy + vec2(pose.z * local.x - pose.w * local.y,
                               pose.w * local.x + pose.z * local.y);
    }
    gl_Position = transform * vec4(world, 0.0, 1.0);
    v_texcoord = texcoord;
    v_color = color;
    int code = int(outline + 0.5);
    v_fringe = (code & 32) != 0 ? 1 : 0;
    v_outline = outline_colors[clamp((code & 31) / 8, 0, 2)];
    // Coverage across a fringe: 1 on its inner corners (shift -0.5), 0 on its outer (+0.5).
    v_cover = clamp(0.5 - shift, 0.0, 1.0);
    // Barycentric weights: 1 at this corner (the vertices come three per triangle, in order)
    // and held at 1 for a side that is not drawn, so that only drawn sides fall to 0.
    int corner = gl_VertexID % 3;
    vec3 own = vec3(corner == 0, corner == 1, corner == 2);
    vec3 drawn = vec3((code & 1) != 0, (code & 2) != 0, (code & 4) != 0);
    v_edge = max(own, vec3(1.0) - drawn);
}
