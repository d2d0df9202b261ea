// Package safedir checks that a directory path and the files in it can be
// changed by nobody but this user (and root), and writes files there that
// another user cannot have planted or swapped.
//
// A path is only as safe as every directory on it: a directory another user
// can write to (without the sticky bit, which keeps them from renaming or
// removing entries they do not own) lets them replace everything below it;
// a component owned by another user lets them change its mode; a symbolic
// link is followed and its target checked the same way, and must itself
// belong to this user or root.
//
// On Windows, where access is governed by ACLs rather than owner and mode
// bits, the checks pass: the temporary and profile directories are private
// to the user there.
package safedir
