// The built-in keyword vocabulary of ``DexKeywordMatcher/standard``.
//
// How to read and extend it:
// - Each group lists keywords for one category, separated by commas (line breaks are spaces), in
//   the syntax below. Order of groups only breaks exact ties.
// - A plain keyword of four letters or more matches inside a word ("fish" in "goldfish").
// - A keyword of three letters or fewer, or one written with a leading "=", matches whole words
//   only ("ant" never matches "elephant"; "=tick" never matches "chopstick").
// - A keyword with spaces is a phrase and matches consecutive words ("teddy bear").
// - A keyword written with a leading "~" is weak: it matches whole words and counts only when
//   nothing else in the label matched ("food item" is food, "item" alone is an object).
// - Plurals and diacritics need no entries: labels and keywords are both folded to lower-case
//   ASCII and singularized before comparison.
// - Where several keywords match one label, the one ending furthest right wins (the head noun
//   of an English compound: "tuna sandwich" is food, "butterfly fish" is a fish), then the
//   longest ("jellyfish" beats "fish"). So an exception is added as a longer phrase or word
//   ending at the same place, never by reordering groups. Any Pokémon keyword wins outright.
//
// Filing decisions: amphibians, molluscs, crustaceans, echinoderms, jellyfish and worms are
// `animal`; arachnids, centipedes and millipedes are `insect` (a Dex files creepy crawlies
// together); lichens are `fungus`; pearls, amber and fossils are `mineral`; people, scenery and
// weather match nothing, so lower-ranked labels decide.

extension DexKeywordMatcher {
  /// The built-in groups, in tie-breaking order.
  static let standardGroups: [(DexCategory, [String])] = [
    (.pokemon, pokemonKeywords),
    (.fungus, fungusKeywords),
    (.insect, insectKeywords),
    (.fish, fishKeywords),
    (.bird, birdKeywords),
    (.reptile, reptileKeywords),
    (.animal, animalKeywords),
    (.plant, plantKeywords),
    (.food, foodKeywords),
    (.mineral, mineralKeywords),
    (.object, objectKeywords),
    (.unknown, nonSubjectKeywords),
  ]

  /// The keywords of one comma-separated list, each with its white space folded to single
  /// spaces, so that a phrase may wrap across lines; empty items (a trailing comma) are dropped.
  static func keywordList(_ list: String) -> [String] {
    list.split(separator: ",").compactMap { item in
      let words = item.split(whereSeparator: \.isWhitespace)
      return words.isEmpty ? nil : words.joined(separator: " ")
    }
  }

  /// People and scenery: a label made of these says nothing about a collectable subject, so
  /// it resolves to no category and the next label decides ("baseball player" is not an
  /// object).
  static let nonSubjectKeywords = keywordList(
    """
    =person, =people, =man, =woman, =men, =women, =child, =children, =kid, =baby, =adult, =boy,
    =girl, =human, =player, ballplayer, =diver, scuba diver, =groom, =bride, =face, =selfie,
    =portrait, =crowd, =sky, =cloud, =clouds, =outdoor, =indoor, =landscape, =sunset, =sunrise,
    =night, =water, =ocean, =sea, =lake, =river, =beach, =seashore, =lakeside, =mountain, =valley,
    =cliff, =volcano, =snow, =ice, =fog, =rain, =document, =text, =screenshot, =blurry, =dark,
    =background
    """)

  static let pokemonKeywords =
    ["pokemon", "pokedex", "pokeball", "pocket monster"] + pokemonNames.map { "=" + $0 }

  /// Pokémon names match whole words only: short names hide inside ordinary words ("gible" in
  /// "dirigible").
  static let pokemonNames = keywordList(
    """
    poke ball, pikachu, raichu, pichu, bulbasaur, ivysaur, venusaur, charmander, charmeleon,
    charizard, squirtle, wartortle, blastoise, caterpie, metapod, butterfree, weedle, kakuna,
    beedrill, pidgey, pidgeotto, pidgeot, rattata, raticate, spearow, fearow, ekans, arbok,
    sandshrew, sandslash, nidoran, nidoking, nidoqueen, clefairy, clefable, vulpix, ninetales,
    jigglypuff, wigglytuff, zubat, golbat, oddish, vileplume, venonat, venomoth, diglett, dugtrio,
    meowth, persian pokemon, psyduck, golduck, mankey, primeape, growlithe, arcanine, poliwag,
    poliwhirl, poliwrath, kadabra, alakazam, machop, machoke, machamp, bellsprout, weepinbell,
    victreebel, tentacool, tentacruel, geodude, graveler, golem pokemon, ponyta, rapidash, slowpoke,
    slowbro, magnemite, magneton, farfetchd, doduo, dodrio, dewgong, grimer, shellder, cloyster,
    gastly, haunter, gengar, drowzee, krabby, kingler, voltorb, exeggcute, exeggutor, cubone,
    marowak, hitmonlee, hitmonchan, lickitung, koffing, weezing, rhyhorn, rhydon, chansey, tangela,
    kangaskhan, horsea, seadra, goldeen, seaking, staryu, starmie, mr mime, scyther, jynx,
    electabuzz, magmar, pinsir, tauros, magikarp, gyarados, lapras, eevee, vaporeon, jolteon,
    flareon, porygon, omanyte, omastar, kabuto, kabutops, aerodactyl, snorlax, articuno, zapdos,
    moltres, dratini, dragonair, dragonite, mewtwo, chikorita, cyndaquil, totodile, togepi,
    togekiss, mareep, ampharos, marill, sudowoodo, wooper, espeon, umbreon, murkrow, misdreavus,
    wobbuffet, girafarig, steelix, scizor, heracross, teddiursa, ursaring, houndoom, tyranitar,
    larvitar, lugia, ho oh, celebi, treecko, sceptile, torchic, blaziken, mudkip, swampert,
    gardevoir, ralts, aggron, sableye, mawile, flygon, altaria, absol, salamence, metagross, latias,
    latios, kyogre, groudon, rayquaza, jirachi, deoxys, turtwig, chimchar, piplup, bidoof, shinx,
    luxray, lucario, riolu, garchomp, gible, leafeon, glaceon, dialga, palkia, giratina, darkrai,
    arceus, snivy, tepig, oshawott, zorua, zoroark, froakie, greninja, fennekin, chespin, sylveon,
    hawlucha, goomy, rowlet, decidueye, litten, incineroar, popplio, primarina, mimikyu, grookey,
    scorbunny, cinderace, sobble, wooloo, yamper, zacian, zamazenta, eternatus, sprigatito, fuecoco,
    quaxly, koraidon, miraidon, pokemon card, pokemon plush, pokemon figure
    """)

  static let fungusKeywords = keywordList(
    """
    fungus, fungi, fungal, mushroom, toadstool, mycelium, mycology, =mold, =mould, slime mold,
    bracket fungus, shelf fungus, polypore, agaric, fly agaric, amanita, death cap, bolete, boletus,
    porcini, chanterelle, morel, truffle, puffball, earthstar, stinkhorn, shiitake, oyster mushroom,
    portobello, portabella, enoki, russula, lactarius, psilocybe, inkcap, ink cap, shaggy mane,
    coral fungus, gyromitra, hen of the wood, chicken of the wood, turkey tail, lion mane,
    lions mane, jelly fungus, witches butter, lichen, basidiomycota, ascomycota, agaricales,
    agaricus, cortinarius, mycena, pleurotus, ganoderma, reishi, chaga, bird nest fungus,
    earth tongue, cup fungus, honey fungus, =yeast
    """)

  static let insectKeywords = keywordList(
    """
    insect, insecta, entomology, =bug, =bugs, beetle, ladybug, ladybird, lady beetle, weevil,
    scarab, firefly, lightning bug, june bug, stink bug, shield bug, bed bug, water bug, butterfly,
    =moth, caterpillar, chrysalis, =cocoon, swallowtail, monarch butterfly, admiral butterfly,
    =ringlet, cabbage butterfly, sulphur butterfly, lycaenid, hairstreak, fritillary butterfly,
    =ant, =ants, fire ant, carpenter ant, termite, =bee, bumblebee, honeybee, honey bee, beehive,
    =wasp, hornet, yellowjacket, yellow jacket wasp, =fly, housefly, house fly, horsefly, horse fly,
    fruit fly, hoverfly, =gnat, =midge, mosquito, dragonfly, damselfly, grasshopper, locust,
    =cricket, katydid, cicada, mantis, praying mantis, stick insect, leaf insect, cockroach, =roach,
    earwig, aphid, lacewing, mayfly, sawfly, stonefly, caddisfly, silverfish, =flea, =louse, =lice,
    =larva, =grub, maggot, silkworm, inchworm, mealworm, hymenoptera, lepidoptera, coleoptera,
    diptera, orthoptera, odonata, hemiptera, arachnid, arachnida, araneae, spider, tarantula,
    black widow, orb weaver, harvestman, daddy longleg, scorpion, =tick, =mite, centipede,
    millipede, myriapod, web spinner, =arthropod, leafhopper, =admiral, =hopper
    """)

  static let fishKeywords = keywordList(
    """
    fish, fishes, pisces, actinopterygii, chondrichthyes, osteichthyes, teleost, salmon, trout,
    tuna, =cod, =bass, sea bass, =carp, =koi, goldfish, guppy, betta, =tetra, =neon tetra, shark,
    hammerhead, great white, whale shark, =ray, stingray, manta, =eel, =eels, moray, clownfish,
    clown fish, anemonefish, angelfish, pufferfish, puffer, blowfish, swordfish, marlin, sailfish,
    barracuda, piranha, catfish, minnow, =perch, =pike, herring, sardine, anchovy, mackerel,
    halibut, flounder, haddock, tilapia, grouper, snapper, wrasse, =tang, surgeonfish, lionfish,
    scorpionfish, seahorse, sea horse, sturgeon, =gar, lamprey, cichlid, zebrafish, damselfish,
    triggerfish, parrotfish, butterflyfish, butterfly fish, =goby, blenny, sunfish, bluegill,
    walleye, muskellunge, =muskie, dogfish, rockfish, =tench, =dory, =koi fish, arowana,
    =oscar fish, gourami, =molly fish, =pleco, loach, =danio, rasbora, =barb fish, mudskipper,
    coelacanth, =skate fish, monkfish, anglerfish, =char fish, =pollock, =hake, =smelt, =shad,
    =sole fish, =plaice, =turbot, =mahi, mahi mahi, =wahoo, =bonito, =tarpon, =bonefish, =pike fish,
    barracouta, =snoek, rock beauty
    """)

  static let birdKeywords = keywordList(
    """
    bird, birds, =aves, avian, ornithology, songbird, seabird, shorebird, waterfowl, bird of prey,
    =raptor, passerine, parrot, macaw, cockatoo, cockatiel, parakeet, budgie, budgerigar, lovebird,
    lorikeet, =lory, eagle, =hawk, falcon, kestrel, osprey, harrier, red kite, black kite,
    snail kite, brahminy kite, whistling kite, kite bird, =owl, =owls, owlet,
    vulture, condor, buzzard, sparrow, robin, finch, goldfinch, canary, =cardinal, blue jay,
    bluejay, =jay, magpie, =crow, raven, =rook, jackdaw, pigeon, =dove, seagull, =gull, =tern,
    pelican, albatross, puffin, penguin, flamingo, heron, egret, stork, =ibis, spoonbill, =swan,
    =goose, gosling, =duck, duckling, mallard, =drake, merganser, =loon, grebe, cormorant, chicken,
    =hen, =hens, rooster, cockerel, =chick, turkey, =quail, pheasant, partridge, grouse, ptarmigan,
    peacock, peafowl, peahen, ostrich, =emu, kiwi bird, cassowary, toucan, hornbill, kingfisher,
    kookaburra, woodpecker, hummingbird, =swallow, =swift bird, warbler, thrush, starling,
    blackbird, bluebird, oriole, tanager, =bunting, =wren, nuthatch, chickadee, titmouse, =tit,
    great tit, blue tit, junco, =lark, skylark, nightingale, mockingbird, cuckoo, roadrunner,
    sandpiper, plover, killdeer, avocet, oystercatcher, =curlew, hoopoe, bee eater, jacamar, coucal,
    bulbul, brambling, =ouzel, =dipper bird, grosbeak, cowbird, grackle, =myna, =mynah, weaver bird,
    waxwing, =shrike, flycatcher, =vireo, =pipit, wagtail, =dunnock, =robin, =bittern, =crane bird,
    whooping crane, sandhill crane, =rail bird, =coot, moorhen, gallinule, =auk, guillemot, =petrel,
    =shearwater, frigatebird, =booby bird, =gannet, anhinga, =heron, =lapwing, =dodo, =quetzal,
    trogon, =barbet, =tui, =kea, =kakapo, =macaw, =conure, =amazon parrot, =cock, =crane, limpkin,
    bustard, turnstone, redshank, dowitcher, african grey, african gray, =psittaciformes,
    =accipitriformes, strigiformes, anseriformes, passeriformes, galliformes, columbiformes,
    piciformes, =bird feather
    """)

  static let reptileKeywords = keywordList(
    """
    reptile, reptilia, reptilian, herpetology, squamata, serpentes, testudines, crocodilia, snake,
    serpent, python, cobra, viper, =boa, boa constrictor, mamba, rattlesnake, rattler, =adder, =asp,
    =krait, copperhead, cottonmouth, kingsnake, king snake, milk snake, garter snake, corn snake,
    grass snake, sea snake, anaconda, taipan, lizard, gecko, iguana, chameleon, komodo,
    komodo dragon, monitor lizard, =skink, =anole, =agama, tuatara, bearded dragon, frilled lizard,
    gila monster, basilisk lizard, horned lizard, horned toad, whiptail, =slowworm, slow worm,
    turtle, tortoise, terrapin, =slider turtle, crocodile, alligator, =caiman, =cayman, gharial,
    =gavial, =croc, =gator, dinosaur, =tyrannosaurus, =triceratops, =velociraptor, =dimetrodon
    """)

  static let animalKeywords = keywordList(
    """
    animal, animalia, =fauna, wildlife, creature, mammal, mammalia, vertebrate, invertebrate, =pet,
    =pets, livestock, =cub, =pup, =dog, =dogs, doggy, puppy, canine, =canis, =hound, retriever,
    terrier, spaniel, poodle, bulldog, beagle, labrador, german shepherd, shepherd dog, sheepdog,
    =collie, =husky, malamute, chihuahua, dachshund, =corgi, =pug, rottweiler, doberman, greyhound,
    whippet, dalmatian, schnauzer, shih tzu, pomeranian, samoyed, =akita, =shiba, shiba inu,
    mastiff, great dane, saint bernard, newfoundland dog, pinscher, =setter, =spitz, basenji,
    papillon, maltese dog, bichon, havanese, wolfhound, bloodhound, foxhound, coonhound,
    weimaraner, vizsla,
    =kelpie, pekinese, pekingese, lhasa apso, =borzoi, saluki, =dingo, =dhole, coyote, jackal,
    =wolf, =fox, foxes, =cat, =cats, kitten, kitty, feline, =felis, =tabby, tomcat, siamese cat,
    persian cat, maine coon, sphynx, =lion, lioness, tiger, leopard, cheetah, jaguar, cougar, =puma,
    =lynx, bobcat, ocelot, panther, snow leopard, =bear, =bears, grizzly, polar bear, panda,
    red panda, koala, kangaroo, wallaby, wombat, opossum, possum, platypus, echidna, marsupial,
    =horse, horses, =pony, =foal, stallion, =mare, donkey, =mule, zebra, giraffe, elephant, =rhino,
    rhinoceros, hippo, hippopotamus, camel, llama, alpaca, =cow, =cows, cattle, =calf, =bull, =ox,
    =oxen, bison, buffalo, =yak, =goat, =goats, =sheep, =lamb, =ram, =pig, =pigs, piglet, =hog,
    =boar, warthog, =deer, =fawn, =elk, =moose, reindeer, caribou, antelope, gazelle, =impala,
    =ibex, =gnu, wildebeest, =okapi, =tapir, armadillo, =sloth, anteater, pangolin, aardvark,
    hedgehog, porcupine, rabbit, bunny, =hare, squirrel, chipmunk, marmot, groundhog, prairie dog,
    beaver, =otter, sea otter, badger, weasel, ferret, =mink, =stoat, =ermine, wolverine, skunk,
    raccoon, meerkat, mongoose, hyena, monkey, =ape, =apes, gorilla, chimpanzee, =chimp, orangutan,
    gibbon, baboon, macaque, =lemur, marmoset, capuchin, primate, =mouse, =mice, hamster,
    guinea pig, gerbil, =rat, =rats, rodent, =mole, =shrew, =bat, =bats, fruit bat, =whale, whales,
    dolphin, porpoise, =orca, narwhal, beluga, manatee, dugong, =seal, =seals, sea lion, walrus,
    =crab, =crabs, hermit crab, lobster, =shrimp, =prawn, crayfish, crawfish, =krill, barnacle,
    crustacean, mollusk, mollusc, mollusca, =snail, =slug, octopus, =squid, cuttlefish, nautilus,
    =clam, oyster, mussel, scallop, =conch, sea urchin, =urchin, starfish, sea star, jellyfish,
    sea jelly, sea anemone, =coral, sea cucumber, sea slug, nudibranch, =worm, =worms, earthworm,
    =leech, flatworm, =frog, =frogs, tree frog, bullfrog, =toad, =toads, salamander, =newt, axolotl,
    amphibian, amphibia, tadpole, caecilian, mammoth, =yeti, =kitty cat, =vole, =lemming, =capybara,
    chinchilla, =coati, =kinkajou, =civet, =genet, =quokka, =numbat, =tarsier, =loris, =bonobo,
    =eft, tusker, isopod, ridgeback, bluetick, =redbone, elkhound, deerhound, short haired pointer,
    =pointer dog, kuvasz, schipperke, groenendael, malinois, =briard, komondor, bouvier,
    appenzeller, entlebucher, =boxer dog, =boxer, leonberg, great pyrenees, =chow, keeshond,
    =griffon, mexican hairless, hartebeest, polecat, siamang, =indri, hound, =terrier, chiton,
    =sorrel horse, =mandrill, =gelada, =colobus, =langur, =howler, =tamarin, =alpine ibex,
    =mountain goat, =musk ox, =water buffalo, =hedgehog, =shetland pony, =cnidaria, =echinodermata,
    =crustacea, =felidae, =canidae, =ursidae
    """)

  static let plantKeywords = keywordList(
    """
    plant, plants, plantae, =flora, botanical, botany, vegetation, houseplant, house plant,
    potted plant, pot plant, flower, flowers, blossom, =bloom, bouquet, =petal, =leaf, foliage,
    =tree, =trees, =shrub, =bush, =hedge, =vine, =ivy, =fern, =moss, =grass, =weed, =weeds, =herb,
    =herbs, succulent, cactus, cacti, =aloe, aloe vera, agave, jade plant, echeveria, =sedum,
    haworthia, orchid, =rose, =roses, tulip, daisy, sunflower, =lily, lilies, =lotus, water lily,
    dandelion, =poppy, =iris, lavender, =violet, =pansy, =peony, hibiscus, hydrangea, magnolia,
    camellia, azalea, rhododendron, geranium, begonia, marigold, carnation, chrysanthemum, daffodil,
    narcissus, crocus, hyacinth, jasmine, gardenia, lilac, wisteria, bougainvillea, =lupine, =lupin,
    foxglove, snapdragon, zinnia, dahlia, =aster, =cosmos, petunia, impatiens, primrose, buttercup,
    clover, thistle, heather, bluebell, cornflower, sweet pea, morning glory, bird of paradise,
    oxeye, monstera, philodendron, pothos, snake plant, sansevieria, spider plant, rubber plant,
    =ficus, fiddle leaf, bonsai, =palm, palm tree, =oak, maple, =pine, pine tree, pinecone,
    pine cone, birch, willow, cedar, cypress, redwood, sequoia, spruce, =fir, =elm, beech, aspen,
    poplar, sycamore, chestnut tree, acacia, eucalyptus, baobab, juniper, hemlock, =yew, larch,
    cherry blossom, sakura, bamboo, =reed, =reeds, cattail, seaweed, =algae, =alga, =kelp, seagrass,
    sapling, seedling, =sprout, =thorn, =bud, pollen, acorn, rose hip, carnivorous plant,
    venus flytrap, pitcher plant, sundew, lady slipper, ladys slipper, =hay, wheat field,
    =wildflower, wildflowers, =meadow flower, =angiosperm, =gymnosperm, conifer, evergreen,
    deciduous, =tracheophyta, =magnoliophyta, =bryophyta, =spermatophyta, rapeseed, buckeye,
    horse chestnut, =conker, =leaves, =garden, =hosta, =coleus, =calathea, =dracaena, =yucca,
    =croton, =anthurium, =gerbera, =freesia, =gladiolus, =ranunculus, =anemone flower, =protea,
    =lantana, =verbena, =salvia, =sage plant, =rosemary plant, =mint plant, =basil plant, =clematis,
    =honeysuckle, =holly, =mistletoe, =boxwood, =oleander, =frangipani, =plumeria, =edelweiss,
    =bromeliad, =tillandsia, =air plant, =liverwort, =horsetail, =nettle, =ragweed, =goldenrod,
    =yarrow, =milkweed, =sorrel, =fiddlehead, =shamrock, =geranium, =cyclamen, =fuchsia,
    =poinsettia, =amaryllis, =azalea, =daylily, =hollyhock, =cosmos flower
    """)

  static let foodKeywords = keywordList(
    """
    food, foods, =dish, =dishes, =meal, cuisine, =snack, dessert, fruit, vegetable, veggie,
    =produce, =drink, beverage, =juice, coffee, =tea, latte, cappuccino, espresso, smoothie,
    milkshake, =milk, =soda, soft drink, =beer, =wine, cocktail, whiskey, whisky, vodka, =rum, =gin,
    =sake, =bread, baguette, croissant, =bagel, =toast, sandwich, burger, pizza, =pasta, spaghetti,
    noodle, =ramen, =pho, =sushi, sashimi, =rice, =curry, =soup, =stew, =salad, =taco, burrito,
    quesadilla, =nacho, french fries, =fries, =chips, steak, =meat, =beef, =pork, =bacon, =ham,
    sausage, hot dog, hotdog, salami, =egg, =eggs, omelet, omelette, pancake, waffle, cereal,
    oatmeal, porridge, yogurt, yoghurt, cheese, =butter, =cake, cupcake, cookie, biscuit, brownie,
    biscotti, biscotto, caprese, edamame, muffin, =donut, doughnut, =pie, =tart, pastry,
    chocolate, =candy, =sweets, lollipop, ice cream,
    gelato, popsicle, pudding, =jelly, =jam, =honey, =sugar, =syrup, =sauce, ketchup, mayonnaise,
    dumpling, spring roll, egg roll, kebab, falafel, hummus, guacamole, =salsa, lasagna, lasagne,
    risotto, paella, fried rice, =bento, onigiri, tempura, dim sum, bibimbap, kimchi, =tofu,
    pad thai, =apple, =apples, banana, =orange, =oranges, =lemon, =lime, =limes, =grape, =grapes,
    strawberry, blueberry, raspberry, blackberry, cranberry, =berry, =berries, =cherry, cherries,
    =peach, =pear, =pears, =plum, =plums, apricot, mango, papaya, pineapple, watermelon, =melon,
    cantaloupe, =kiwi, kiwifruit, coconut, avocado, pomegranate, =fig, =figs, citrus, grapefruit,
    tangerine, clementine, mandarin orange, dragon fruit, dragonfruit, passion fruit, lychee,
    durian, jackfruit, persimmon, =guava, =olive, =olives, tomato, potato, carrot, broccoli,
    cauliflower, cabbage, lettuce, spinach, =kale, cucumber, zucchini, courgette, =squash, pumpkin,
    eggplant, aubergine, pepper, bell pepper, =chili, =chilli, jalapeno, =onion, =onions, garlic,
    ginger root, =corn, sweetcorn, corn on the cob, =maize, =pea, =peas, =bean, =beans, lentil,
    chickpea, =nut, =nuts, peanut, almond, walnut, cashew, pistachio, hazelnut, chestnut, =pecan,
    radish, =beet, beetroot, turnip, asparagus, celery, artichoke, =leek, =okra, brussels sprout,
    sweet potato, =yam, cassava, seafood, shellfish, fish and chips, fish fillet, fish taco,
    fish fry, caviar, popcorn, pretzel, cracker, granola, trail mix, =grocery, groceries,
    baked good, bakery, breakfast, =lunch, dinner, =brunch, platter, fried chicken, roast chicken,
    chicken wing, chicken nugget, chicken breast, chicken curry, chicken soup, roast turkey,
    turkey sandwich, smoked salmon, salmon fillet, grilled salmon, tuna salad, crab cake,
    lobster roll, shrimp cocktail, fried shrimp, lamb chop, rack of lamb, =gummy bear, gummy bears,
    chocolate truffle, mushroom soup, teriyaki, =sundae, =mousse, =fondue, =crepe, =scone,
    =tiramisu, cheesecake, =macaron, macaroni, =gnocchi, =ravioli, =tortilla, =enchilada, =samosa,
    =naan, =pita, =focaccia, =brioche, =churro, =baklava, =mochi, =boba, bubble tea, =matcha,
    =kombucha, lemonade, =cider, champagne, =liquor, =sangria, =margarita, =mojito, =martini,
    =nigiri, =maki, =udon, =soba, =gyoza, =bao, =congee, =poke bowl, =shawarma, =gyro, =meatball,
    =meatloaf, =pot roast, =barbecue, =bbq, =jerky, =pickle, =pickles, =sauerkraut, =coleslaw,
    =bruschetta, =carbonara, food item, food product, consomme, french loaf, cardoon, granny smith,
    potpie, pot pie, eggnog, hot pot, hotpot, =bolognese, =stroganoff, =goulash, =biryani, =tikka,
    =masala, =dal, =tagine, =couscous, =quinoa, =grain, =flour, =dough, =edible, =confectionery,
    =trifle, =flan, =custard, =eclair, =strudel, =cannoli, =jackfruit, =rambutan, =mangosteen,
    =starfruit, =plantain, =kumquat, =quince, =nectarine, =gooseberry, =currant, =elderberry,
    =mulberry, =honeydew, =banana split, =guacamole, =mashed potato, =baked potato, =potato chip,
    =corn dog, =club sandwich, =sub sandwich, =submarine sandwich, =cheeseburger, =hamburger,
    =wasabi, =soy sauce
    """)

  static let mineralKeywords = keywordList(
    """
    mineral, minerals, mineralogy, geology, =rock, =rocks, =stone, =stones, pebble, boulder, =gem,
    =gems, gemstone, crystal, crystalline, quartz, rose quartz, amethyst, =diamond, =ruby, sapphire,
    emerald, =opal, =topaz, =garnet, =jade, =agate, =jasper, obsidian, =onyx, malachite, pyrite,
    fools gold, =gold, gold nugget, =silver ore, =copper ore, =ore, =ores, =geode, fossil, ammonite,
    trilobite, =amber, petrified wood, granite, marble stone, basalt, limestone, sandstone, =slate,
    =shale, =flint, =chalk, calcite, fluorite, feldspar, =mica, gypsum, halite, salt crystal,
    tigers eye, tiger eye, moonstone, sunstone, bloodstone, =lapis, lapis lazuli, azurite,
    tourmaline, =beryl, aquamarine, peridot, citrine, zircon, meteorite, =lava, lava rock,
    volcanic rock, igneous, sedimentary, metamorphic, stalactite, stalagmite, =pearl, =pearls,
    =marble, =pumice, =rhodochrosite, =selenite, =labradorite, =hematite, =magnetite, =galena,
    =cinnabar, =turquoise, =jadeite, =nephrite, =carnelian, =chalcedony, =celestite, =kyanite,
    =garnierite, =gneiss, =schist, =quartzite, =dolomite, =conglomerate rock, =bismuth, =sulfur,
    =sulphur, =mineral specimen
    """)

  static let objectKeywords = keywordList(
    """
    ~object, ~objects, ~thing, ~things, ~item, ~items, ~artifact, ~artefact, man made, manmade,
    =tool, =tools, =toy, =toys, =device, gadget, machine, =machinery, vehicle, =car, =cars, =truck,
    =bus, bicycle, =bike, motorcycle, scooter, =train, locomotive, airplane, aeroplane, aircraft,
    =plane, helicopter, =boat, =ship, sailboat, catamaran, canoe, kayak, =yacht, =building, =house,
    =structure, architecture, furniture, =chair, =table, =sofa, =couch, =bed, =lamp, =clock, =watch,
    wristwatch, =phone, smartphone, telephone, computer, laptop, keyboard, =monitor, =screen,
    television, =tv, camera, headphone, earphone, speaker, =bottle, =bottles, beer bottle,
    wine bottle, water bottle, =cup, =mug, =glass, wine glass, =plate, =bowl, =spoon, =fork, =knife,
    =pan, =pot, teapot, =kettle, =jar, =vase, =box, =bag, backpack, suitcase, umbrella, =hat, =cap,
    =shoe, =shoes, sneaker, =boot, =boots, =shirt, t shirt, jacket, =dress, =pants, trousers,
    =jeans, =sock, =socks, =glove, =gloves, =scarf, =tie, necktie, sunglasses, eyeglasses,
    spectacles, jewelry, jewellery, necklace, bracelet, =ring, earring, =book, =books, =pen, pencil,
    =paper, notebook, envelope, =card, =cards, playing card, trading card, =coin, =coins, =key,
    =keys, padlock, =lock, =door, =window, =wall, =fence, =bridge, =tower, statue, sculpture,
    painting, poster, =sign, signboard, =flag, =ball, baseball, football, basketball, soccer ball,
    tennis ball, golf ball, volleyball, =doll, =dolls, teddy bear, =teddy, =plush, plushie,
    stuffed animal, stuffed toy, soft toy, =lego, =figurine, action figure, =figure, puzzle, guitar,
    =piano, violin, =cello, =drum, =drums, trumpet, saxophone, =flute, instrument, hammer,
    screwdriver, wrench, =saw, =drill, scissors, =needle, candle, mirror, pillow, blanket, =towel,
    toothbrush, =comb, =brush, =soap, bucket, basket, =broom, vacuum, =fan, heater, fridge,
    refrigerator, =oven, microwave, toaster, blender, =stove, =sink, toilet, bathtub, =shower,
    faucet, =pipe, =wire, =cable, battery, light bulb, =robot, =drone, rocket, satellite, helmet,
    =mask, wallet, =purse, handbag, =belt, =shelf, cabinet, =desk, drawer, trophy, =medal, =crown,
    =tent, balloon, skateboard, surfboard, =ski, =skis, snowboard, =racket, baseball bat,
    cricket bat, cricket ball, =dice, =die, birdhouse, bird house, bird feeder, birdbath, bird bath,
    bird cage, birdcage, fish tank, fishbowl, fishing rod, fishing, aquarium, computer mouse,
    =mouse pad, =mousepad, planter, flower pot, flowerpot, =pavilion, medallion, =tomahawk,
    =scarecrow, =ornament, =decoration, =souvenir, =trinket, =gift, =present, =package, =parcel,
    =container, =tin can, =can, =cans, =barrel, =crate, =pallet, =ladder, =rope, =chain, =bell,
    =whistle, =compass, =globe, =map, =telescope, microscope, binoculars, =lens, =projector,
    =printer, =router, =console, controller, joystick, gamepad, =game boy, =nintendo, =playstation,
    =xbox, =tablet, =ipad, =iphone, =kindle, =remote, remote control, =charger, =adapter, =plug,
    =socket, =switch, =button, =zipper, =hanger, =clothes, clothing, garment, =apparel, =costume,
    =uniform, =sweater, =hoodie, =coat, =skirt, =shorts, =sandal, =sandals, =slipper, =slippers,
    =heel, =heels, =loafer, =wallet, =keychain, =umbrella, =cane, walking stick, =crutch,
    wheelchair, =stroller, =pram, =cradle, =crib, =rug, =carpet, =curtain, =cushion, =mattress,
    =quilt, =bench, =stool, =armchair, =bookshelf, =bookcase, =wardrobe, =dresser, =chandelier,
    =lantern, =flashlight, =torch, =sword, =shield, =axe, =hatchet, =shovel, =spade, =rake, =hoe,
    =trowel, =wheelbarrow, =lawnmower, =tractor, =excavator, =bulldozer, =forklift, =van, =taxi,
    =ambulance, =jeep, =suv, =minivan, =limousine, =convertible, =tram, =subway, =trolley,
    =submarine, =ferry, =jet, =airliner, =glider, =parachute, =hot air balloon, =blimp, =spacecraft,
    =spaceship, =skyscraper, =church, =castle, =temple, =mosque, =palace, =lighthouse, =windmill,
    =monument, =fountain, =bottlecap, =bottle cap, =corkscrew, =spatula, =ladle, =whisk, =colander,
    =grater, =cutting board, =chopsticks, =chopstick, =napkin, =tray, =thermos, =tumbler, =pitcher,
    =jug, =flask, =canteen, =lunchbox, =lunch box, =cooler, =grill, =wok, =skillet, =saucepan,
    =dishwasher, =washing machine, =dryer, =iron, =ironing board, =sewing machine, =typewriter,
    =calculator, =stapler, =eraser, =ruler, =crayon, =marker, =paintbrush, =easel, =canvas, =frame,
    =picture frame, =photograph, =photo, =postcard, =stamp, =ticket, =banknote, =money,
    =credit card, =passport, =magazine, =newspaper, =comic, =manga, =vinyl, =record player,
    =cassette, =cd, =dvd, =radio, =microphone, =amplifier, =accordion, =harmonica, =banjo, =ukulele,
    =harp, =clarinet, =trombone, =tuba, =xylophone, =tambourine, =chess, =chessboard, =board game,
    =rubik, =yo yo, =frisbee, =boomerang, =kite toy, =action figures, =funko, =amiibo, =model car,
    =toy car, =hot wheels, =rc car, =train set, =building blocks, =pacifier, =rattle, =baby bottle,
    =diaper, =sunscreen, =lipstick, =perfume, =cologne, =makeup, =cosmetics, =hairbrush, =razor,
    =hair dryer, =toothpaste, =shampoo, =lotion, =sponge, =mop, =dustpan, =trash can, =garbage can,
    =bin, =mailbox, =hydrant, =fire hydrant, =parking meter, =traffic light, =traffic cone,
    =street sign, =stop sign, =bollard, =lamppost, =street lamp, =swing, =slide, =trampoline,
    =pool table, =dartboard, tableware, kitchenware, =utensil, cutlery, electronics,
    electronic device, appliance, =art, artwork, =craft, =jewel, rubber duck, rocking horse,
    horseshoe, spider man, spiderman, satellite dish, x ray, =hose, =gnome, abacus, =abaya,
    academic gown, =altar, =apron, rifle, =balance beam, band aid, bannister, banister, barbell,
    barbershop, =barn, barometer, bassinet, bassoon, =beaker, bearskin, =bib, bikini, boathouse,
    bobsled, bonnet, bookshop, =bow, brassiere, =bra, breastplate, buckle, bulletproof, =caldron,
    cauldron, cannon, cardigan, carousel, carton, =chest, chiffonier, stocking, =cloak, =clog,
    =coil, cuirass, =dam, dishrag, disk brake, =dock, =dome, doormat, drilling platform, drumstick,
    dumbbell, entertainment center, face powder, fireboat, flagpole, french horn, gas pump, goblet,
    go kart, golfcart, golf cart, gondola, =gong, =gown, greenhouse, grille, guillotine, hair spray,
    half track, hamper, handkerchief, hard disc, hard disk, harvester, holster, =hook, hoopskirt,
    skirt, horizontal bar, hourglass, =ipod, =jean, jinrikisha, rickshaw, kimono, knee pad, =knot,
    lawn mower, library, lifeboat, lighter, =liner, =loupe, lumbermill, sawmill, mailbag, maillot,
    manhole, maraca, matchstick, maypole, =maze, minibus, miniskirt, missile, mitten, mobile home,
    model t, =modem, monastery, =moped, =mortar, mortarboard, mousetrap, =muzzle, =nail, neck brace,
    obelisk, =oboe, odometer, oil filter, overskirt, oxcart, =packet, paddlewheel, pajama, pyjama,
    parallel bar, =patio, pedestal, photocopier, =pick, pickelhaube, =pier, piggy bank, pinwheel,
    planetarium, =plow, =plough, plunger, =pole, poncho, potters wheel, projectile, =puck, radiator,
    =reel, revolver, rotisserie, =safe, safety pin, saltshaker, salt shaker, =sarong, scabbard,
    schooner, scoreboard, =screw, =shoji, shopping cart, =slot, snorkel, snowmobile, snowplow,
    sombrero, space bar, space shuttle, speedboat, =spindle, spotlight, =stage, stethoscope, =stole,
    strainer, stretcher, =stupa, sundial, sunglass, sweatshirt, swimming trunk, syringe,
    tape player, =thatch, thimble, =throne, tile roof, tobacco shop, totem pole, toyshop, toy shop,
    tricycle, trimaran, tripod, triumphal arch, =tub, turnstile, unicycle, =vault, =velvet,
    vestment, =vest, viaduct, washbasin, =wig, =wool, =wreck, shipwreck, =yawl, =yurt, web site,
    website, cassette player, cd player, dvd player, record player, =menu, =bubble, =wing, =shop,
    =store, =storefront, airship, dirigible, amphibious vehicle, feather boa, mosquito net,
    spider web, cocktail shaker, coffeepot, espresso maker, petri dish, solar dish, dogsled,
    dog sled, horse cart, horse drawn, meat cleaver, =cleaver, grocery store, butcher shop,
    candy store, breakwater, =jetty, seawall, garden cart, =lawn cart, =barrow, oscilloscope
    """)
}
