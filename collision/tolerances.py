"""Every tolerance the engine uses, named, with its unit and why.

Lengths are in world units (metres in the benchmark scenes), times in seconds or in
fractions of the sweep interval as stated.
"""

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
