// A program whose own kernel has a built-in kernel's name: asking for it must throw
// Errc::invalid_argument naming both files, on every device, and leave the device usable.
#include <dualrt/dualrt.hpp>

#include <iostream>
#include <string>

int main() try {
    int failures = 0;
    const auto all = dualrt::devices();
    if (all.empty()) {
        std::cout << "SKIPPED: no device of any backend (see dualrt-info)\n";
        return 77;
    }
    for (const dualrt::Device& device : all) {
        const std::string where = std::string(dualrt::to_string(device.backend())) + " '" +
                                  device.name() + "'";
        try {
            device.kernel("saxpy");
            std::cerr << "FAILED on " << where << ": kernel(\"saxpy\") chose one silently\n";
            ++failures;
        } catch (const dualrt::Error& e) {
            const std::string message = e.what();
            const bool names_both = message.find("kernels/c") != std::string::npos &&
                                    message.find("saxpy_again") != std::string::npos &&
                                    message.find("consumer_clash") != std::string::npos;
            if (e.errc() != dualrt::Errc::invalid_argument || !names_both) {
                std::cerr << "FAILED on " << where << ": unclear error: " << message << "\n";
                ++failures;
            } else {
                std::cout << where << ": " << message << "\n";
            }
        }
        device.kernel("fill");  // other kernels are unaffected
    }
    return failures == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
