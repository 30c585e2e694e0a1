#version 330 core
// The static bodies' picture, drawn once, read back pixel for pixel where they are (the
// vertices are theirs, placed by fill.vert): copying only what they cover.
uniform sampler2D backdrop;
uniform vec2 viewport;                   // framebuffer size in pixels
out vec4 frag_color;
void main() {
    frag_color = texture(backdrop, gl_FragCoord.xy / viewport);
}
