"""Where the contact passes find their numbers: the columns of the body rows (B_*), the rows of
the manifold columns (M_*) and of the point columns (P_*) that collision/solvers/iterative/
soft_step.py packs and collision/solvers/iterative/passes.py reads (see there)."""

from __future__ import annotations

B_VX, B_VY, B_W, B_IM, B_II, B_DX, B_DY, B_DA = range(8)  # body: velocity, inverse mass, travel
BODY_COLUMNS = 8
P_RNA, P_RNB, P_RTA, P_RTB, P_NMASS, P_TMASS, P_MU, P_SEP, P_NI, P_TI, P_MAXNI, P_REF = range(12)
POINT_COLUMNS = 12  # point: arms x normal / tangent, masses, friction, separation, impulses
M_NX, M_NY, M_K11, M_K12, M_K22, M_I11, M_I12, M_I22, M_OK, M_ROW = range(10)
# Couplings inside a manifold (change of one row's relative speed per unit impulse of
# another): tangent 1 from tangent 0, normal i from tangent j.
M_T01, M_NT00, M_NT01, M_NT10, M_NT11 = range(10, 15)
MANIFOLD_COLUMNS = 15  # manifold: normal, 2 x 2 mass and inverse, usable, softness, couplings
