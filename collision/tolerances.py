"""Every tolerance the engine uses, named, with its unit and why.

Lengths are in world units (metres in the benchmark scenes), times in seconds or in
fractions of the sweep interval as stated.
"""

#: Most vertices (count) of one convex shape: the feature keys of contact points give a vertex
#: index 4 bits, and the separating-axis test of two shapes loops over at most twice this many
#: faces. Larger outlines are split with ``decompose``.
MAX_VERTICES = 16

#: Squared relative speed (units^2 per unit time^2) below which the velocity axis is not
#: tested: its direction would be noise.
VELOCITY_AXIS_EPSILON_SQ = 1e-18

#: Projected speed on an axis (units per unit time) below which intervals are treated as
#: not moving relative to each other on that axis.
AXIS_SPEED_EPSILON = 1e-12

#: Relative tolerance for the convexity check of polygon input: a cross product smaller than
#: this times the squared edge lengths counts as collinear.
CONVEXITY_RELATIVE_EPSILON = 1e-12

#: Relative tolerance on the area of a 3+ vertex outline: below this fraction of the square
#: of its extent it is degenerate (zero area).
AREA_RELATIVE_EPSILON = 1e-12

#: Depth (units) within which two support vertices count as one edge when looking for
#: contact features (Tutorial 6's "very close to the minimum"), relative to the shape size.
SUPPORT_RELATIVE_EPSILON = 1e-6

#: Margin (units) added around each body's swept bounding box in the world's broadphase, so
#: pairs that come within touching distance during the step are still tested.
BROADPHASE_MARGIN = 0.01

#: Time (seconds) within which two hits of the arcade's ordered processing count as simultaneous
#: and are ranked by contact surface length instead (seed 002's TIMESLICE_EPSILON).
ARCADE_TIME_EPSILON = 1e-9

#: Fraction (dimensionless) of the shorter of two touching edges below which their contact
#: surface is a corner only: a crack between flush boxes, grazed rather than hit (seed 002's
#: crack problem; the tutorial and arcade solvers). Relative, because how far a body sliding
#: over flush tiles dips below their tops grows with its size: a tilt of 1e-6 rad, which the
#: solvers leave, lowers a 1 m box's leading corner 5e-7 m. A step 1/1000 of the edge high is
#: still met.
CRACK_RELATIVE_LENGTH = 1e-3

#: How far (a fraction of the static body's radius, dimensionless) beyond a static body's face
#: the iterative solver looks for a neighbouring static body covering it (see
#: CRACK_RELATIVE_LENGTH): flush tiles meet within rounding (1e-16 of their size); a gap wider
#: than this between two static bodies is a crack a corner can enter, and its faces are met.
CRACK_COVER_RELATIVE_DISTANCE = 1e-6

#: Relative speed (units/s) along the normal below which the arcade treats a touching pair as
#: resting rather than approaching. Resolving a stack pair by pair only halves the leftover
#: approach each round, so an exact zero would take dozens of hits per step; what is left below
#: this speed (at most this * dt of sinking) is taken out by the overlap push the next step.
ARCADE_APPROACH_SPEED = 1e-3

#: Fraction (dimensionless) of the first pass's largest change of a contact point's speed below
#: which a further pass of the tutorial solver over the step's hits counts as changing nothing,
#: and the passes stop: each pass over two hits sharing a body shrinks what one undoes of the
#: other by a constant factor, so a fraction, not a speed, says they agree whatever the scale.
TUTORIAL_PASS_TOLERANCE = 1e-6

#: Relative determinant below which the two-point block impulse of the tutorial solver is
#: ill-conditioned (the two contact points act like one) and the points are solved one by one.
BLOCK_SOLVE_CONDITION = 1e-9

#: Distance (units) by which the other shape's face axis must beat the first shape's to
#: become the manifold's reference face: equal faces must not flicker from step to step.
MANIFOLD_AXIS_TOLERANCE = 5e-4

#: Length (units) below which an edge or a vertex-to-vertex direction is degenerate and no
#: normal is computed from it.
MANIFOLD_DEGENERATE_LENGTH = 1e-12

#: Speculative reach (units) of bodies at rest: pairs closer than this get contact points
#: before they touch, so resting contacts persist and are warm started (Box2D: 4 slops).
SPECULATIVE_DISTANCE = 0.02

#: Stiffness (1/s) of the iterative solver's soft contact: the push-out spring's frequency,
#: capped at a quarter of the step rate so it stays stable (Box2D v3's soft step).
CONTACT_HERTZ = 30.0

#: Damping ratio (dimensionless) of the soft contact: well over-damped so push-out is smooth.
CONTACT_DAMPING_RATIO = 10.0

#: Largest speed (units/s) at which overlapping bodies are pushed apart: deep overlaps
#: separate gently instead of exploding.
CONTACT_MAX_PUSH_SPEED = 3.0

#: Smallest approach speed (units/s) at which restitution applies, whatever the gravity: below
#: it an impact is rounding noise. The threshold the iterative solver uses is the larger of this
#: and RESTITUTION_GRAVITY_STEPS steps of gravity, so without gravity slow impacts still bounce
#: (a fixed 1 m/s turned every glancing hit inelastic: energy drifted by percents).
RESTITUTION_THRESHOLD = 0.01

#: Steps of gravity (dimensionless: threshold = this * |g| * dt) a contact may approach by and
#: still count as resting, not bouncing: a resting body approaches by one step of gravity, a
#: few more when the push-out or a neighbour's settling lets it drop. 6 gives about 1 m/s at
#: 60 Hz and 9.81 m/s^2 (Box2D's fixed threshold).
RESTITUTION_GRAVITY_STEPS = 6.0

#: Linear speed (units/s) below which a body counts as at rest for sleeping.
SLEEP_LINEAR_SPEED = 0.05

#: Angular speed (rad/s, 2 degrees/s) below which a body counts as at rest for sleeping.
SLEEP_ANGULAR_SPEED = 0.0349

#: Time (s) an island's bodies must all stay at rest before the island sleeps.
SLEEP_TIME = 0.5

#: Relative tolerance of seed 001's ``equal_floats`` (primitives.py): two values are equal when
#: they differ by at most this times their magnitude (floor 1), so "parallel" and "same point"
#: survive the rounding of the arithmetic that produced them.
PRIMITIVE_RELATIVE_EPSILON = 1e-12

#: Smallest determinant of a two-point manifold's normal effective mass, relative to the
#: product of its diagonal (Box2D 2.4 uses a condition number of 1000): below it the two
#: points act as one and are solved one by one instead of as a block.
SOLVER_BLOCK_CONDITION = 1e-3

#: Factor (dimensionless) on CONTACT_HERTZ for contacts against a body that does not move
#: (static or asleep): they carry whole stacks, and Box2D v3.1 makes them twice as stiff.
STATIC_CONTACT_HERTZ_SCALE = 2.0

#: Fraction (dimensionless, 0..1) of last step's normal impulse that the soft contact treats
#: as already carried: its spring only answers for the change in load, so loaded stacks
#: sink less than a plain soft contact lets them. 1 would be an integral controller and
#: rings; 0 is Box2D v3's plain soft contact.
CONTACT_LOAD_MEMORY = 0.3

#: Overlap (units) past which the iterative solver's shock propagation acts after the soft
#: step, and to which it lifts a heavily loaded contact back (Box2D's linear slop, a quarter of
#: SPECULATIVE_DISTANCE). Resting contacts the soft contact holds sit shallower.
SHOCK_SLOP = 0.005

#: Load (dimensionless) past which the shock propagation lifts a contact back to SHOCK_SLOP:
#: the mass the upper body carries (its own and its share of all resting on it) times the
#: pair's 1/m_a + 1/m_b. The soft contact's static deflection grows with it: a box on the
#: ground is 1, the bottom of ten equal boxes 10 (0.004 m deep), the bench's random pile
#: stays under 50, a 1:100 pair is 101, and under 512 kg on 1 kg boxes it passes 1000.
SHOCK_LOAD_RATIO = 50.0

#: Gauss-Seidel passes (count) of each of the shock propagation's two passes (lift, stop): in
#: layer order one pass carries a stack; a second settles two-point faces and side contacts.
SHOCK_ITERATIONS = 2

#: Cosine (dimensionless; 0.9 is about 26 degrees) of the largest angle between a contact's
#: normal and straight up (against gravity) for the upper body to rest on the lower one: the
#: shock propagation holds the lower body of such a contact only (steeper contacts share
#: their impulses by inverse mass) and lifts only along such contacts.
SUPPORT_COSINE = 0.9

#: Largest difference (dimensionless) between 1 and the length of a hit's normal passed to
#: ``contact_points``: a normal further from unit length was not made by ``sweep``.
UNIT_NORMAL_TOLERANCE = 1e-9

#: Largest absolute vertex coordinate (units) a shape may have: squares and cross products of
#: coordinates (areas, inertias, projections) must stay far from float64 overflow, and at 1e12
#: float64 still resolves 1e-4 units.
MAX_COORDINATE = 1e12

#: Largest speed (units/s) a body may be given (velocity, impulse): kinetic energies m v^2 of
#: any allowed mass stay far from float64 overflow, and a step moves a body at most this * dt.
#: Every step ends with each speed cut to at most this (World.step), so what a step leaves is
#: always a state the next step accepts.
MAX_SPEED = 1e9

#: Largest angular speed (rad/s) a body may be given: the same overflow margin as MAX_SPEED.
#: Every step ends with each angular speed cut to at most this, as MAX_SPEED.
MAX_ANGULAR_SPEED = 1e9

#: Largest acceleration (units/s^2) that gravity or a force (F / m) may ask for: one step of
#: it changes a speed by at most MAX_SPEED for any dt up to MAX_TIME_STEP (gravity and a force
#: together by twice that, which the step's speed cap then cuts back).
MAX_ACCELERATION = 1e9

#: Largest density (mass per unit area) of a body: with MAX_COORDINATE-sized shapes and
#: MAX_SPEED its kinetic energy still fits in a float64.
MAX_DENSITY = 1e12

#: Largest time step (s) World.step accepts: a step of MAX_ACCELERATION changes a speed by at
#: most MAX_SPEED, and a step at MAX_SPEED moves a body by at most 1e-3 MAX_COORDINATE. (A
#: step of 1000 s let gravity alone reach 1e12 units/s in one step, past every speed limit.)
MAX_TIME_STEP = 1.0

#: Smallest time step (s) World.step accepts: the solvers divide by the (sub)step, and the
#: squares of its inverse (1e18 / s^2 here) must stay far from overflow. A step of a few
#: denormal seconds divided by zero and left the world half stepped.
MIN_TIME_STEP = 1e-9

#: How far (a factor, dimensionless) past the input limits (MAX_COORDINATE, MAX_SPEED,
#: MAX_ANGULAR_SPEED) World.step still accepts the live state, which the user may write: a step
#: itself always ends within the input limits (speeds are cut to MAX_SPEED and
#: MAX_ANGULAR_SPEED, and a body that leaves the world's disc of radius MAX_COORDINATE stops on
#: its edge), so only values written far beyond them, which would overflow, are refused.
STATE_LIMIT_FACTOR = 1e3

#: Smallest size (units) of a shape's features (an edge, a segment, a polygon's narrowest
#: width) relative to the size of its coordinates (the largest absolute coordinate, where the
#: shape is placed): below it, rounding the vertices (into world space, or far from the
#: origin) moves them by a sizeable part of the feature, and edge normals, areas and contact
#: points turn to noise (a 1e-16 box at (0, 1) rounds to a single point). 1e-10 keeps about 6
#: significant digits of every edge.
FEATURE_RELATIVE_SIZE = 1e-10

#: Smallest absolute size (units) of a shape's features (see FEATURE_RELATIVE_SIZE): products
#: of six lengths (squared depths times squared normal lengths in the separating-axis test)
#: stay above float64's smallest normal number (2.2e-308), so no kernel divides by a denormal
#: or by a product that underflowed to zero.
MIN_FEATURE_SIZE = 1e-50

#: Farthest (units) a shape can move and still touch another, both within MAX_COORDINATE of
#: the origin on each axis (the square's diagonal, 2.83e12, with a margin): ``contact_points``
#: refuses a hit whose time and velocity move A farther (it was not made by ``sweep`` for
#: these shapes, and its points would be meaningless or overflow).
MAX_TRAVEL = 4e12

#: Largest speed (units per unit time, the caller's time unit) ``sweep`` and
#: ``contact_points`` accept: its products with face normals (up to 3e12 units long between
#: MAX_COORDINATE vertices) must stay finite. Any motion of shapes within MAX_COORDINATE fits
#: far below it at any time scale.
MAX_SWEEP_SPEED = 1e150

#: Distance (units) within which a contact point whose features changed (a deep overlap can
#: swap the reference face between steps) still inherits last step's point of the same pair:
#: its load must not vanish for a step, or the bodies it carries drop and bounce.
WARM_START_MATCH_DISTANCE = 0.1

#: Cosine (dimensionless; 0.98 is about 11 degrees) of the largest angle between a renamed
#: contact point's normal and last step's for it to inherit that point's impulses (see
#: WARM_START_MATCH_DISTANCE): an impulse carried to another direction pushes the wrong way.
WARM_START_MATCH_COSINE = 0.98

#: Margin (units) by which the iterative solver's cached broadphase boxes are grown: while
#: every body's swept box stays inside its grown box, last pairs are filtered instead of
#: sorting and sweeping again (Box2D's fat boxes use 0.1 m). Results do not depend on it.
BROADPHASE_FAT_MARGIN = 0.1
#: Steps of travel (at the body's velocity when its box is grown) by which a cached broadphase
#: box also reaches ahead of a moving body, on the side it moves toward. Results do not
#: depend on it.
BROADPHASE_LEAD_STEPS = 2.0

#: Exponent (dimensionless) of the mass ratio (heavy / light) by which the iterative solver's
#: soft contact between two moving bodies is made stiffer (see CONTACT_MASS_RATIO_ONSET): the
#: spring acts on the pair's effective mass, about the light body's, but carries the heavy
#: body's weight; 0.5 makes its stiffness grow with the heavy mass, so a 400:1 stack sinks
#: 0.017 m instead of 0.1 m.
CONTACT_MASS_RATIO_EXPONENT = 0.5

#: Cap (a fraction of the substep rate, dimensionless) on that stiffened frequency. Box2D v3
#: caps contact frequency at 0.25 of it; 0.3 still settles a 400:1 stack still, 0.5 and up
#: make the light body chatter between the heavy one and the ground.
CONTACT_MASS_RATIO_HERTZ_CAP = 0.3

#: Mass ratio (heavy / light, dimensionless) above which that stiffening starts (the frequency
#: is multiplied by (ratio / this) ** CONTACT_MASS_RATIO_EXPONENT): the bench's random pile
#: shapes span ratios up to ~20, which the plain soft contact keeps at rest, while stiffening
#: from a ratio of 10 kept a deep pile trembling (0.03 m/s in its last second instead of 0.008).
CONTACT_MASS_RATIO_ONSET = 25.0

#: Smallest mass (kg) and moment of inertia (kg m^2) of a moving body: below this the inverse
#: the solvers use (1/m, 1/I) would overflow or turn every impulse into NaN, so add_body refuses it.
MIN_MASS = 1e-100
MIN_INERTIA = 1e-100

#: Most convex parts (count) in one compound body (World.add_compound): each part is a row of
#: the world's arrays, and a pair of compounds has up to this squared many part pairs to test.
MAX_COMPOUND_PARTS = 64

#: How far short (units) of the static body it would have entered a body is put back by the
#: continuous pass after the solve (collision/ccd.py): less than SPECULATIVE_DISTANCE, so the
#: next step's contact with that body is made before they touch.
CONTINUOUS_BACKOFF = 0.005

#: Most candidate pairs (per body, dimensionless) the broadphase hands one step: a body in a
#: pile touches about six others, while a crowd heaped on one spot makes n^2 / 2 pairs (10 000
#: boxes at one point: 50 million, and the first step ran out of memory; 2 500 took 6 s a
#: step). Past MAX_PAIRS_PER_BODY * body_count pairs the broadphase stops (the pairs it had not
#: reached are not tested that step) and World.step warns, so a step's time and memory grow
#: with the number of bodies, never with its square. A world of 65 bodies or fewer never
#: reaches it.
MAX_PAIRS_PER_BODY = 32

#: Most vertices (count) an outline given to ``decompose`` may have: the self-crossing check
#: and the ear clipping are O(n^2) compiled loops, and the merge of a comb-like outline's
#: pieces grows as n^2 too; at this size a comb (the worst case measured) takes about a second,
#: and a larger outline is refused at once instead of taking minutes.
MAX_OUTLINE_VERTICES = 4096

#: Margin (relative: times an edge's length and the points' extent) by which a point must lie
#: inside the polygon of the extreme points for Polygon.hull to skip it: far beyond rounding,
#: so no point the hull's tolerance could keep is skipped.
HULL_FILTER_RELATIVE_MARGIN = 1e-6
