import DexKit
print(DexPrompt.identification(hint: .plant))
