#!/usr/bin/env python3
"""Generates DexModel's WordNet lexicon: every noun lemma of WordNet 3.0 -> DexCategory.

  apt-get install wordnet-base          # WordNet 3.0 data files in /usr/share/wordnet
  python3 Scripts/wordnet-lexicon.py    # writes Sources/DexModel/Lexicon/WordNetLexicon.txt
  python3 Scripts/wordnet-lexicon.py --explain crane loggerhead   # how lemmas were resolved

Input: Debian `wordnet-base` (WordNet 3.0 licence, notice kept in WordNetLexicon.LICENSE):
data.noun (synsets and their hypernym pointers), index.noun (each lemma's senses, most frequent
first) and cntlist.rev (how often each sense was tagged in the semantic concordance).

Category rules and decisions are those of Scripts/label-categories.txt (read through
Scripts/classifier-labels.py, so the classifier's ImageNet table and this lexicon agree): a synset's category is the first rule
whose synset is among its ancestors (hypernyms and instance hypernyms, the synset itself
included), after the table's hand overrides. This lexicon adds the rules ([lexicon-rules]) the ImageNet table
needs no word for, ahead of its scenery, person and artifact rules: minerals, rocks, gemstones, crystals, ores and
fossils -> mineral (DexCategory.mineral); bodies of water and ways (roads, streets, paths) ->
unknown (scenery, like geological formations). Vehicles, buildings and every other artifact -> object. A synset that reaches no
rule (abstractions, places, acts) gives its lemmas no entry: the lexicon claims nothing there.

A lemma with senses in several categories is resolved by weight: each sense weighs its tag
count from cntlist.rev plus a small prior that falls with sense order (index.noun lists the
most frequent sense first), so tagged usage decides and sense order breaks the rest. Senses
that are named instances (a person, a place: "Crane" the poet) count only when the lemma has no
common-noun sense, and a person sense (unknown) weighs a quarter, so that "loggerhead" is a turtle
rather than a dunce. A natural category must beat every non-natural one by weight; on a tie the
non-natural one wins, so a lemma that is as much an artifact as an animal is never claimed
natural.

Keys are folded like DexModel's LabelText: lower case, apostrophes dropped, every other
non-alphanumeric character a word break, words joined by one space ("lady's_slipper" ->
"ladys slipper", "hen-of-the-woods" -> "hen of the woods").

Two derived kinds of entry, both below real lemmas (never replacing one):
- Breed-style prefixes: a lemma of three words or more whose last word is itself a lemma of
  the same category also gives its prefix ("bernese mountain dog" -> "bernese mountain",
  animal), unless the prefix, or its plural, is a lemma.
- Compound heads, written "*word": the category most multiword lemmas ending in that word
  have, when at least two do and three in four agree ("*shepherd" -> animal, from "german
  shepherd" and "belgian shepherd"), kept only where that differs from the word's own entry
  (a shepherd alone is a person). DexModel uses them only for a multiword label that is no
  lemma.

Output (deterministic, sorted): one `key<TAB>code` line per entry, code one letter per
category (see CODES), after a header naming the source. Prints the size and counts.
"""

import argparse
import importlib.util
import os
import re
import sys
import unicodedata
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "Sources", "DexModel", "Lexicon")
OUT = os.path.join(OUT_DIR, "WordNetLexicon.txt")
LICENSE_OUT = os.path.join(OUT_DIR, "WordNetLexicon.LICENSE")
WORDNET_DIR = "/usr/share/wordnet"
WORDNET_COPYRIGHT = "/usr/share/doc/wordnet-base/copyright"

# One letter per DexCategory raw value (DexLexicon.swift decodes the same table).
CODES = {
    "plant": "p", "animal": "a", "fish": "f", "bird": "b", "insect": "i", "reptile": "r",
    "mineral": "m", "fungus": "u", "food": "d", "object": "o", "unknown": "x",
}
NATURAL = {"plant", "animal", "fish", "bird", "insect", "reptile", "mineral", "fungus", "food"}

def load_classifier_rules():
    """RULES, OVERRIDES and the data.noun reader of Scripts/classifier-labels.py (the rules and
    overrides of Scripts/label-categories.txt), so both scripts agree."""
    path = os.path.join(ROOT, "Scripts", "classifier-labels.py")
    spec = importlib.util.spec_from_file_location("classifier_labels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rules = list(module.RULES)
    # Rules this lexicon adds ahead of the scenery, person and artifact rules ([lexicon-rules]).
    extra_rules = module.TABLE["lexicon-rules"]
    scenery = next(i for i, rule in enumerate(rules) if rule[2] in ("unknown", "object"))
    rules[scenery:scenery] = extra_rules
    overrides = {wnid[1:]: category for wnid, (category, _) in module.OVERRIDES.items()}
    return rules, overrides, module.load_wordnet


def wordnet_lines(path):
    """The data lines of a WordNet file (its licence header lines start with two spaces)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from (line for line in f if not line.startswith("  "))


def load_synsets(path, load_wordnet):
    """{offset: (hypernyms, is_instance)} for every noun synset: classifier-labels.py's reader
    for the hypernyms (`@` and `@i` pointers), plus which synsets are named instances."""
    instances = {line.split(" ", 1)[0] for line in wordnet_lines(path) if " @i " in line}
    return {offset: (hypernyms, offset in instances)
            for offset, (_, hypernyms) in load_wordnet(path).items()}


def load_index(path):
    """{lemma: [offsets, most frequent sense first]} from index.noun."""
    index = {}
    for line in wordnet_lines(path):
        fields = line.split()
        lemma, synset_count, pointer_count = fields[0], int(fields[2]), int(fields[3])
        index[lemma] = fields[6 + pointer_count:6 + pointer_count + synset_count]
    return index


def load_tag_counts(path):
    """{(lemma, sense number): tag count} for nouns, from cntlist.rev."""
    counts = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, sense, count = line.split()
            lemma, _, rest = key.partition("%")
            if rest.startswith("1:"):
                counts[(lemma.lower(), int(sense))] = int(count)
    return counts


def fold(lemma):
    """The LabelText key of a WordNet lemma."""
    text = unicodedata.normalize("NFKD", lemma.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"['’‘`´]", "", text)
    return " ".join(w for w in re.split(r"[^0-9a-z]+", text) if w)


class Categorizer:
    def __init__(self, synsets, rules, overrides):
        self.synsets, self.rules, self.overrides = synsets, rules, overrides
        self.cache = {}

    def ancestors(self, offset):
        seen, stack = set(), [offset]
        while stack:
            o = stack.pop()
            if o in seen:
                continue
            seen.add(o)
            stack.extend(self.synsets[o][0])
        return seen

    def category(self, offset):
        if offset not in self.cache:
            result = self.overrides.get(offset)
            if result is None:
                found = self.ancestors(offset)
                result = next((c for o, _, c in self.rules if o in found), None)
            self.cache[offset] = result
        return self.cache[offset]


def resolve(lemma, offsets, categorizer, synsets, tag_counts, explain=False):
    """The lemma's category by weighted senses (None when no sense reaches a rule), and whether
    it names instances only (a person, a place)."""
    senses = []
    for number, offset in enumerate(offsets, start=1):
        category = categorizer.category(offset)
        if category is None:
            continue
        senses.append((number, offset, category, synsets[offset][1]))
    named = all(instance for *_, instance in senses)
    if not named:
        senses = [s for s in senses if not s[3]]  # named instances count only when alone
    weights = defaultdict(float)
    for number, offset, category, _ in senses:
        weight = tag_counts.get((lemma, number), 0) + 0.5 / number
        if category == "unknown":
            weight *= 0.25
        weights[category] += weight
    if explain:
        print(lemma, [(n, o, c, "instance" if i else "") for n, o, c, i in senses], dict(weights))
    if not weights:
        return None, named
    best = max(weights.items(), key=lambda kv: (kv[1], kv[0] not in NATURAL, kv[0]))
    return best[0], named


def build(wordnet_dir, explain=()):
    rules, overrides, load_wordnet = load_classifier_rules()
    synsets = load_synsets(os.path.join(wordnet_dir, "data.noun"), load_wordnet)
    index = load_index(os.path.join(wordnet_dir, "index.noun"))
    tag_counts = load_tag_counts(os.path.join(wordnet_dir, "cntlist.rev"))
    categorizer = Categorizer(synsets, rules, overrides)
    for lemma in explain:
        resolve(lemma, index.get(lemma, []), categorizer, synsets, tag_counts, explain=True)
    entries, common = {}, set()
    for lemma in sorted(index):
        category, named = resolve(lemma, index[lemma], categorizer, synsets, tag_counts)
        key = fold(lemma)
        if category is None or not key or key in entries:
            continue  # two lemmas folding to one key ("lady's_slipper"): the first, sorted
        entries[key] = category
        if not named:
            common.add(key)
    derived = {}
    heads = defaultdict(Counter)
    for key in sorted(common):  # derived entries come from common nouns, not names
        category, words = entries[key], key.split(" ")
        if len(words) >= 2:
            heads[words[-1]][category] += 1
        if len(words) >= 3 and entries.get(words[-1]) == category:
            prefix = " ".join(words[:-1])
            if prefix not in entries and prefix + "s" not in entries:
                derived.setdefault(prefix, set()).add(category)
    for prefix, categories in derived.items():
        if len(categories) == 1:
            entries[prefix] = categories.pop()
    for word, counts in heads.items():
        (category, count), total = counts.most_common(1)[0], sum(counts.values())
        if count >= 2 and 4 * count >= 3 * total and entries.get(word) not in (None, category):
            entries["*" + word] = category
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wordnet", default=WORDNET_DIR)
    parser.add_argument("--out", default=OUT)
    parser.add_argument("--explain", nargs="*", default=[], help="print how these lemmas resolve")
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.wordnet, "data.noun")):
        raise SystemExit(f"no WordNet 3.0 in {args.wordnet}: apt-get install -y wordnet-base")
    entries = build(args.wordnet, args.explain)
    lines = [f"{key}\t{CODES[category]}" for key, category in sorted(entries.items())]
    header = ("# DexModel WordNet lexicon: key<TAB>category code (p plant, a animal, f fish, b bird, "
              "i insect, r reptile, m mineral, u fungus, d food, o object, x unknown); generated by "
              "Scripts/wordnet-lexicon.py from WordNet 3.0 (see WordNetLexicon.LICENSE)\n")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(header + "\n".join(lines) + "\n")
    if args.out == OUT:
        with open(WORDNET_COPYRIGHT, encoding="utf-8") as f:
            copyright_text = f.read()
        notice = copyright_text.split("License: WordNet3.0\n", 1)[1].split("\nFiles:", 1)[0]
        notice = "\n".join(line[1:] if line.startswith(" ") else line for line in notice.splitlines())
        notice = notice.replace("\n.\n", "\n\n")
        with open(LICENSE_OUT, "w", encoding="utf-8", newline="\n") as f:
            f.write("WordNetLexicon.txt is derived from WordNet 3.0 (Princeton University), as "
                    "packaged by Debian (wordnet-base), by Scripts/wordnet-lexicon.py. WordNet's "
                    "licence:\n\n" + notice.strip() + "\n")
    counts = Counter(entries.values())
    size = os.path.getsize(args.out)
    print(f"{len(entries)} entries, {size} bytes: "
          + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
