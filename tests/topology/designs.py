"""Small hand-made designs for the analysis tests."""

from fabricstudio.model import Design, FabricSettings, GpuServer, Leaf, Link, Technology


def ring_design(switches: int = 4, technology: Technology = Technology.ROCE,
                closed: bool = True) -> Design:
    """``switches`` leaves in a ring (or a line when not closed), one 1-NIC server on each."""
    design = Design("ring", FabricSettings(technology=technology))
    for i in range(1, switches + 1):
        design.add_device(Leaf(id=f"sw{i}", radix=8, x=100.0 * i))
        design.add_device(GpuServer(id=f"server{i}", gpus=1, nics=1, x=100.0 * i, y=100.0))
        design.add_link(Link(id=f"server{i}-nic0", a=f"server{i}", b=f"sw{i}", a_port=0))
    for i in range(1, switches + (1 if closed else 0)):
        j = i % switches + 1
        design.add_link(Link(id=f"sw{i}-sw{j}", a=f"sw{i}", b=f"sw{j}"))
    return design
