/// What people ask a voice assistant, as templates: the built-in part of the question corpus,
/// so the question model knows the common forms even before SUSI's skill list was ever fetched.
///
/// A `{slot}` stands for each value of `QuestionForms.slots[slot]` in turn; a template with two
/// slots pairs their values in step (the longer list's length), not every combination, so no
/// form outweighs the others by its slots alone. Numbers are written as words, as they are said.
public enum QuestionForms {
    public static let templates: [String] = [
        // Facts: what, who, where, when, how.
        "what is {thing}", "what is a {object}", "what is the meaning of {word}", "define {word}",
        "what does {word} mean", "how do you spell {word}", "who is {person}", "who was {person}",
        "tell me about {person}", "when was {person} born", "how old is {person}", "where was {person} born",
        "where is {place}", "how far is {place}", "how far is {place} from {city}",
        "what is the capital of {country}", "what is the population of {country}",
        "what language do they speak in {country}", "what currency do they use in {country}",
        "how big is {country}", "how many people live in {city}", "what country is {city} in",
        "who invented the {object}", "who discovered {discovery}", "who wrote {book}", "who painted the {painting}",
        "when did {event} happen", "when did {event} start", "why is the sky blue", "why do cats purr",
        "how does a {object} work", "how tall is {landmark}", "how high is {landmark}", "how long is the {river}",
        "how deep is the {ocean}", "what is the biggest {animal}", "how fast can a {animal} run",
        "what do {animals} eat", "how long do {animals} live", "what sound does a {animal} make",
        "how many legs does a {animal} have", "what is the largest planet", "how far away is the moon",
        "how far is the sun from the earth", "what is the speed of light", "what is the boiling point of water",
        "how many continents are there", "how many countries are in the world", "what is the tallest building in the world",
        "who is the president of {country}", "who is the prime minister of {country}", "who won the world cup",
        "who won the last {sport} game", "what is the score of the {sport} game",
        // Numbers and units.
        "what is {number} plus {number}", "what is {number} minus {number}", "what is {number} times {number}",
        "what is {number} divided by {number}", "what is the square root of {number}", "what is {number} percent of {number}",
        "how many {small_unit} are in a {large_unit}", "how many days are in {month}", "convert {number} {unit} to {unit}",
        "how much is {number} {unit} in {unit}", "how many {unit} is {number} {unit}",
        // Time, date, timers, alarms, reminders.
        "what time is it", "what time is it in {city}", "what is the time", "what day is it today", "what is the date today",
        "what is the date tomorrow", "what day of the week is it", "what year is it", "what month is it",
        "when is {holiday}", "how many days until {holiday}", "set a timer for {number} minutes",
        "set a timer for {number} seconds", "set a timer for {number} hours", "start a timer for {number} minutes",
        "set an alarm for {number} o'clock", "set an alarm for {number} {clock}", "wake me up at {number} {clock}",
        "wake me up in {number} minutes", "remind me to {task} at {number} o'clock", "remind me to {task} in {number} minutes",
        "remind me to {task} tomorrow", "cancel the timer", "stop the timer", "how much time is left", "cancel my alarm",
        // Weather.
        "what is the weather", "what is the weather today", "what is the weather like", "what is the weather in {city}",
        "what is the weather like in {city}", "what is the weather tomorrow", "will it rain today", "will it rain tomorrow",
        "is it going to rain in {city}", "will it snow tomorrow", "how hot is it today", "how cold is it outside",
        "what is the temperature in {city}", "what is the temperature outside", "do i need an umbrella today",
        "what is the forecast for {day}", "is it sunny in {city}",
        // Language.
        "translate {word} into {language}", "translate {word} to {language}", "how do you say {word} in {language}",
        "what is {word} in {language}", "what is the {language} word for {word}", "say {word} in {language}",
        // Entertainment and small talk.
        "tell me a joke", "tell me another joke", "tell me a funny joke", "tell me a story", "tell me a fact",
        "tell me something interesting", "tell me a riddle", "tell me a quote", "sing a song", "sing me a song",
        "play some music", "play music", "play {genre} music", "play a song by {artist}", "play the radio",
        "play the news", "stop the music", "pause the music", "next song", "turn up the volume",
        "turn down the volume", "what song is this", "flip a coin", "roll a dice", "pick a number between one and {number}",
        "hello", "hi", "good morning", "good night", "how are you", "how are you today", "what is your name",
        "who are you", "who made you", "who created you", "how old are you", "where are you from", "are you a robot",
        "do you like {thing2}", "what is your favorite {favorite}", "what can you do", "what are your skills", "help",
        "thank you", "thanks", "you are funny", "i love you", "goodbye", "see you later", "stop", "never mind",
        // News, places, lists, devices.
        "what is the news", "what is the latest news", "what are the headlines", "tell me the news about {topic}",
        "find a restaurant near me", "where is the nearest {shop}", "how do i get to {place}",
        "add {food} to my shopping list", "what is on my shopping list", "add {task} to my to do list",
        "turn on the {appliance}", "turn off the {appliance}", "turn on the lights in the {room}",
        "turn off the lights in the {room}", "set the temperature to {number} degrees", "lock the door",
        "call {name}", "send a message to {name}", "read my messages", "what is on my calendar today",
        "search for {topic}", "search wikipedia for {topic}", "look up {topic}", "open {app}",
        "recommend a {media}", "what movies are playing", "who sings {song}", "what is a good recipe for {food}",
        "how do i make {food}", "how many calories are in {food}", "is {food} healthy",
    ]

    /// The values of each slot: words the templates take, all in the CMU dictionary.
    public static let slots: [String: [String]] = [
        "thing": ["love", "life", "the time", "the weather", "a black hole", "gravity", "photosynthesis", "democracy",
                  "artificial intelligence", "the internet", "a computer", "the moon", "the sun", "climate change",
                  "an atom", "electricity", "music", "happiness", "the universe", "a virus"],
        "thing2": ["music", "cats", "dogs", "pizza", "the rain", "me", "football", "chocolate"],
        "object": ["telephone", "light bulb", "car", "computer", "airplane", "bicycle", "camera", "radio", "clock",
                   "robot", "rocket", "television", "microwave", "battery", "engine", "piano"],
        "word": ["hello", "thank you", "good morning", "goodbye", "water", "friend", "house", "cat", "dog", "love",
                 "apple", "book", "school", "happy", "beautiful", "please", "yes", "no", "computer", "music"],
        "person": ["albert einstein", "isaac newton", "barack obama", "donald trump", "angela merkel", 
                   "bill gates", "steve jobs", "marie curie", "charles darwin", "william shakespeare", "mozart",
                   "beethoven", "leonardo da vinci", "nelson mandela", "abraham lincoln", "queen elizabeth",
                   "taylor swift", "michael jackson", "the pope", "your creator", "the president"],
        "place": ["the eiffel tower", "the nearest hospital", "the airport", "the train station", "paris", "london",
                  "new york", "mount everest", "the grand canyon", "australia", "the north pole", "the moon"],
        "city": ["london", "paris", "berlin", "new york", "tokyo", "delhi", "mumbai", "moscow", "madrid", "rome",
                 "sydney", "chicago", "boston", "los angeles", "san francisco", "toronto", "amsterdam", "vienna",
                 "singapore", "beijing", "dubai", "cairo", "seattle", "munich", "hamburg", "dublin", "stockholm"],
        "country": ["france", "germany", "india", "china", "japan", "spain", "italy", "russia", "brazil", "canada",
                    "australia", "mexico", "egypt", "england", "the united states", "the united kingdom", "america",
                    "sweden", "norway", "kenya", "argentina", "greece", "turkey", "poland"],
        "discovery": ["penicillin", "gravity", "electricity", "america", "radium", "the electron", "dna"],
        "book": ["romeo and juliet", "hamlet", "harry potter", "the odyssey", "war and peace", "the bible",
                 "pride and prejudice", "the hobbit", "the lord of the rings", "macbeth"],
        "painting": ["mona lisa", "starry night", "last supper", "sistine chapel"],
        "event": ["the second world war", "the first world war", "the french revolution", "the moon landing",
                  "the big bang", "the cold war"],
        "landmark": ["mount everest", "the eiffel tower", "the empire state building", "the statue of liberty",
                     "big ben", "the great wall of china", "mount kilimanjaro"],
        "river": ["nile", "amazon river", "mississippi", "river thames", "danube", "rhine"],
        "ocean": ["pacific ocean", "atlantic ocean", "indian ocean", "ocean", "sea"],
        "animal": ["cat", "dog", "horse", "elephant", "lion", "tiger", "whale", "bird", "cheetah", "shark", "snake",
                   "spider", "cow", "rabbit", "mouse", "bear", "wolf", "monkey", "dolphin", "penguin"],
        "animals": ["cats", "dogs", "horses", "elephants", "lions", "whales", "birds", "sharks", "snakes", "spiders",
                    "cows", "rabbits", "mice", "bears", "wolves", "monkeys", "dolphins", "penguins", "bees", "ants"],
        "sport": ["football", "soccer", "basketball", "baseball", "cricket", "tennis", "hockey"],
        "number": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                   "fifteen", "twenty", "twenty five", "thirty", "forty", "forty five", "fifty", "sixty", "ninety",
                   "a hundred", "one hundred", "two hundred", "a thousand", "thirteen", "fourteen", "sixteen",
                   "seventeen", "eighteen", "nineteen", "twenty one", "thirty five", "seventy", "eighty"],
        "small_unit": ["seconds", "minutes", "hours", "days", "weeks", "centimeters", "inches", "grams", "feet", "meters"],
        "large_unit": ["minute", "hour", "day", "week", "year", "meter", "foot", "kilogram", "mile", "kilometer"],
        "unit": ["miles", "kilometers", "pounds", "kilograms", "feet", "meters", "inches", "centimeters", "dollars",
                 "euros", "degrees fahrenheit", "degrees celsius", "liters", "gallons", "ounces", "grams"],
        "month": ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                  "october", "november", "december", "a year", "a leap year"],
        "holiday": ["christmas", "easter", "new year", "halloween", "thanksgiving", "my birthday", "the weekend"],
        "clock": ["a m", "p m", "in the morning", "in the evening", "tonight", "tomorrow"],
        "task": ["call my mother", "buy milk", "take my medicine", "go shopping", "water the plants", "pay the bills",
                 "walk the dog", "check the oven", "take out the trash", "feed the cat"],
        "day": ["today", "tomorrow", "the weekend", "monday", "tuesday", "wednesday", "thursday", "friday",
                "saturday", "sunday", "next week", "tonight"],
        "language": ["german", "french", "spanish", "italian", "hindi", "chinese", "japanese", "russian",
                     "portuguese", "arabic", "dutch", "english", "korean", "greek", "swedish", "polish"],
        "genre": ["rock", "jazz", "classical", "pop", "relaxing", "country", "dance", "happy"],
        "artist": ["the beatles", "queen", "madonna", "elvis", "adele", "the rolling stones", "michael jackson", "abba"],
        "favorite": ["color", "food", "movie", "song", "animal", "book", "number", "sport"],
        "topic": ["sports", "science", "technology", "politics", "the weather", "football", "space", "music",
                  "the economy", "health", "the election", "cats"],
        "shop": ["pharmacy", "gas station", "supermarket", "bank", "restaurant", "hospital", "coffee shop"],
        "food": ["milk", "eggs", "bread", "butter", "apples", "bananas", "cheese", "coffee", "pizza", "pasta",
                 "pancakes", "chicken", "rice", "a sandwich", "a cake", "soup", "tea", "salad"],
        "appliance": ["lights", "light", "fan", "heater", "television", "radio", "coffee machine", "tv"],
        "room": ["kitchen", "bedroom", "living room", "bathroom", "office", "garden"],
        "name": ["mom", "dad", "john", "mary", "peter", "sarah", "my wife", "my husband", "my brother", "my sister"],
        "app": ["the calendar", "youtube", "the camera", "settings", "the browser"],
        "media": ["movie", "book", "song", "restaurant", "podcast", "game"],
        "song": ["yesterday", "thriller", "hello", "imagine", "bohemian rhapsody"],
    ]

    /// Every template with its slots filled: the built-in sentences.
    public static var sentences: [String] {
        templates.flatMap(expanded)
    }

    /// `template` with each slot filled in step with the others; a template without slots as it is.
    static func expanded(_ template: String) -> [String] {
        let parts = template.split(separator: "{", omittingEmptySubsequences: false)
        let filled = parts.dropFirst().map { part -> (values: [String], rest: Substring) in
            let close = part.firstIndex(of: "}")!
            let name = String(part[..<close])
            guard let values = slots[name] else { preconditionFailure("no values for the slot {\(name)} of \"\(template)\"") }
            return (values, part[part.index(after: close)...])
        }
        let count = filled.map(\.values.count).max() ?? 1
        return (0..<count).map { index in
            filled.enumerated().reduce(String(parts[0])) { text, slot in
                // The same slot twice ("{number} plus {number}") takes different values.
                let values = slot.element.values
                return text + values[(index + slot.offset * 7) % values.count] + slot.element.rest
            }
        }
    }
}
