"""PLACEHOLDER: replaced by the world work."""


class World:
    pass


class RayHit:
    pass


class Contacts:
    pass
