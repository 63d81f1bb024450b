#include <archive.h>
#include <archive_entry.h>

// AE_IFREG is a macro with a cast, which Swift does not import.
static inline int hotword_archive_entry_is_file(struct archive_entry *entry) {
    return archive_entry_filetype(entry) == AE_IFREG;
}
