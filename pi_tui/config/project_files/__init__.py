"""The files of a project as git, fd and ripgrep see them: where the working tree starts (a `.git`
folder, or the `.git` file of a worktree or submodule), its branch, the ignore rules, and the walks
that honour them. The grep/find fallbacks, skill discovery and `@` completion all use these, so they
list the same files."""
