"""A seeded mutational fuzzer for the frontend: PTX (and CUDA) texts mutated at character, token and line
level. Deterministic for a seed, fast (no coverage feedback), so CI can run thousands of inputs."""

from __future__ import annotations

import random
import re

TOKEN = re.compile(r"%?[A-Za-z_$][\w$.:]*|0[fFdD][0-9a-fA-F]+|0[xX][0-9a-fA-F]+|\d+|\S")
# fragments that are valid somewhere in PTX, so mutations reach deep parser and decoder paths
FRAGMENTS = [
    "%r1", "%rd1", "%f1", "%p1", "[%rd1]", "[%rd1+4]", "{%r1, %r2}", "0f3F800000", "0d3FF0000000000000",
    ".u32", ".s64", ".f32", ".pred", ".global", ".shared", ".v4", ".rn", ".ftz", ".sat", "@%p1", "@!%p1",
    "bra", "ret;", "exit;", "bar.sync 0;", "ld.global.u32", "st.shared.f32", "setp.lt.s32", "mov.u32",
    "call", "(", ")", "{", "}", ";", ",", "-", "+", "<", ">", "LBL:", ".reg .b32 %r<9>;", ".param .u64 p",
    ".entry", ".func", ".visible", ".extern", ".local .align 4 .b8 x[16];", "selp.b32", "cvta.to.global.u64",
    "tex.1d.v4.f32.s32", "atom.global.add.u32", "shfl.sync.down.b32", "vote.sync.ballot.b32", "\n", " ",
    "\"str\"", "0x7fffffff", "2147483648", "-1", "99999999999999999999", "%tid.x", "%ctaid.y", "$L__BB0_1",
]


def mutate(text: str, rng: random.Random, rounds: int | None = None) -> str:
    """``text`` after 1 to 4 random edits."""
    for _ in range(rounds or rng.randint(1, 4)):
        kind = rng.randrange(9)
        if not text:
            return rng.choice(FRAGMENTS)
        if kind == 0:  # delete a span of characters
            i = rng.randrange(len(text))
            text = text[:i] + text[i + rng.randint(1, 8):]
        elif kind == 1:  # insert a fragment
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(FRAGMENTS) + text[i:]
        elif kind == 2:  # replace a character
            i = rng.randrange(len(text))
            text = text[:i] + chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32), 0xE9])) + text[i + 1:]
        elif kind == 3:  # replace one token by another of the text or a fragment
            toks = list(TOKEN.finditer(text))
            if toks:
                t = rng.choice(toks)
                other = rng.choice(toks).group() if rng.random() < 0.5 else rng.choice(FRAGMENTS)
                text = text[:t.start()] + other + text[t.end():]
        elif kind == 4:  # delete a line
            lines = text.split("\n")
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 5:  # duplicate a line elsewhere
            lines = text.split("\n")
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(lines))
            text = "\n".join(lines)
        elif kind == 6:  # swap two lines
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == 7:  # truncate
            text = text[: rng.randrange(len(text) + 1)]
        else:  # change a number
            nums = list(re.finditer(r"\d+", text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + str(rng.choice([0, 1, 7, 31, 32, 64, 255, 65536, 2**31, 2**63, 10**30]))\
                    + text[m.end():]
    return text
